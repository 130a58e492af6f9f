// ---- MCP Apps: JSON-RPC 2.0 over postMessage with the host (the parent window) ----
const host = {
  connected: false,
  canOpenLinks: false,
  nextId: 1,
  pending: new Map(),
  post(msg) { if (window.parent && window.parent !== window) window.parent.postMessage(msg, '*'); },
  request(method, params) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.post({ jsonrpc: '2.0', id, method, params });
    });
  },
  notify(method, params) { this.post(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params }); },
};
let lastSize = '';
let sizeQueued = false;
function sendSize() {
  if (!host.connected || sizeQueued) return;
  sizeQueued = true;
  requestAnimationFrame(() => {
    sizeQueued = false;
    const root = document.documentElement;
    const saved = root.style.height;
    root.style.height = 'max-content';
    const height = Math.ceil(root.getBoundingClientRect().height);
    root.style.height = saved;
    const width = Math.ceil(window.innerWidth);
    const key = width + 'x' + height;
    if (key === lastSize) return;
    lastSize = key;
    host.notify('ui/notifications/size-changed', { width, height });
  });
}
function onHostMessage(msg) {
  if (!isObj(msg) || msg.jsonrpc !== '2.0') return;
  if ('id' in msg && !('method' in msg)) {                       // a response to one of our requests
    const p = host.pending.get(msg.id);
    if (!p) return;
    host.pending.delete(msg.id);
    if (isObj(msg.error)) p.reject(new Error(str(msg.error.message))); else p.resolve(msg.result);
    return;
  }
  const params = isObj(msg.params) ? msg.params : {};
  switch (msg.method) {
    case 'ui/notifications/tool-input':
      state.input = isObj(params.arguments) ? params.arguments : null;
      if (!state.result) render();
      break;
    case 'ui/notifications/tool-input-partial':
      break;
    case 'ui/notifications/tool-result':
      state.result = params;
      state.resultFromHost = true;
      render();
      break;
    case 'ui/notifications/tool-cancelled':
      state.cancelled = str(params.reason);
      if (!state.result) render();
      break;
    case 'ui/notifications/host-context-changed':
      applyHostContext(params);
      sendSize();
      break;
    case 'ui/resource-teardown':
    case 'ping':
      if ('id' in msg) host.post({ jsonrpc: '2.0', id: msg.id, result: {} });
      break;
    default:
      if ('id' in msg) host.post({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } });
  }
}
window.addEventListener('message', (ev) => {
  if (ev.source !== window.parent || window.parent === window) return;
  onHostMessage(ev.data);
});
if (window.parent && window.parent !== window) {
  host.request('ui/initialize', {
    appInfo: { name: 'chat2sbx-tool-card', version: '1.0.0' },
    appCapabilities: { availableDisplayModes: ['inline'] },
    protocolVersion: '2026-01-26',
  }).then((res) => {
    if (!isObj(res)) return;
    host.connected = true;
    host.canOpenLinks = isObj(res.hostCapabilities) && isObj(res.hostCapabilities.openLinks);
    applyHostContext(res.hostContext);
    host.notify('ui/notifications/initialized');
    render();
    if (typeof ResizeObserver === 'function') new ResizeObserver(sendSize).observe(document.body);
  }, () => {});
}

// ---- ChatGPT's legacy globals (window.openai), read when present and on every change ----
function fromOpenAi() {
  const o = window.openai;
  if (!o || typeof o !== 'object') return;
  if (o.theme) applyTheme(o.theme);
  if (isObj(o.toolInput) && !state.input) state.input = o.toolInput;
  // The MCP Apps result is complete (content blocks, isError); the globals only stand in for it.
  if (isObj(o.toolOutput) && !state.resultFromHost) {
    state.result = { structuredContent: o.toolOutput, content: [],
                     _meta: isObj(o.toolResponseMetadata) ? o.toolResponseMetadata : undefined };
    render();
  } else if (state.result) {
    render();
  }
}
window.addEventListener('openai:set_globals', fromOpenAi);
fromOpenAi();
