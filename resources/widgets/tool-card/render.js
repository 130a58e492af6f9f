// ---- drawing the card: the waiting state, or the result in the view it names (parsers.js: viewOf) ----
const state = { input: null, result: null, resultFromHost: false, toolName: null, theme: null, cancelled: null };
const DRAW = { terminal: viewTerminal, diff: viewDiff, sandbox: viewSandbox, 'sandbox-list': viewSandboxList,
               export: viewExport, image: viewImage, file: viewFile, checkpoint: viewCheckpoint, fallback: viewFallback };
function render() {
  const r = state.result;
  card.textContent = '';
  if (!r) {
    const input = state.input || {};
    card.setAttribute('data-view', state.cancelled !== null ? 'cancelled' : 'waiting');
    card.appendChild(header(state.toolName, pill(state.cancelled !== null ? 'cancelled' : 'running\u2026', state.cancelled !== null ? 'warn' : 'info')));
    if (typeof input.command === 'string') card.appendChild(el('div', 'cmd', clip(input.command, 4000)));
    if (state.cancelled) card.appendChild(el('div', 'note', state.cancelled));
    sendSize();
    return;
  }
  const tool = toolOf(r, state.toolName);
  let view = viewOf(r);
  try {
    DRAW[view](tool, r, state.input);
  } catch (e) {
    // A result of an unexpected shape still shows its text.
    card.textContent = '';
    view = 'fallback';
    viewFallback(tool, r);
  }
  card.setAttribute('data-view', view);
  sendSize();
}

// ---- theme ----
function applyTheme(theme) {
  if (theme !== 'light' && theme !== 'dark') return;
  state.theme = theme;
  document.documentElement.setAttribute('data-theme', theme);
}
function applyHostContext(ctx) {
  if (!isObj(ctx)) return;
  if ('theme' in ctx) applyTheme(ctx.theme);
  if (isObj(ctx.styles) && isObj(ctx.styles.variables)) {
    for (const [k, v] of Object.entries(ctx.styles.variables))
      if (/^--[a-z0-9-]{1,64}$/.test(k) && typeof v === 'string' && v.length < 512 && !/[;{}<>]|url\(/i.test(v))
        document.documentElement.style.setProperty(k, v);
  }
  if (isObj(ctx.toolInfo) && isObj(ctx.toolInfo.tool) && typeof ctx.toolInfo.tool.name === 'string') state.toolName = ctx.toolInfo.tool.name;
}
if (!document.documentElement.hasAttribute('data-theme'))
  applyTheme(window.matchMedia && window.matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light');
