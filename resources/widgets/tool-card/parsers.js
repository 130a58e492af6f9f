// ---- pure functions: values, ANSI escapes, diffs, the view of a result (no DOM: tests/card runs them in Node) ----
const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const str = (v) => (typeof v === 'string' ? v : '');
const num = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
function clip(text, max) { return text.length > max ? text.slice(0, max) : text; }
function bytes(n) {
  if (n === null) return null;
  if (n < 1024) return n + ' B';
  if (n < 1024 * 1024) return (n / 1024).toFixed(1) + ' KB';
  return (n / 1024 / 1024).toFixed(1) + ' MB';
}
function safeHttpUrl(u) {
  if (typeof u !== 'string' || u.length > 2048) return null;
  try {
    const url = new URL(u);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch (e) { return null; }
}

// ---- ANSI: SGR colours become classes, every other escape or control byte is dropped ----
const ESC_RE = /\x1b\[([0-?]*)[ -\/]*([@-~])|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[P^_][^\x1b]*(?:\x1b\\)?|\x1b[@-Z\\-_]?|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/g;
function sgr(params, st) {
  const codes = params === '' ? [0] : params.split(/[;:]/).map((p) => (p === '' ? 0 : parseInt(p, 10)));
  for (let i = 0; i < codes.length; i++) {
    const c = codes[i];
    if (c === 0) { st.fg = -1; st.b = st.d = st.i = st.u = false; }
    else if (c === 1) st.b = true; else if (c === 2) st.d = true; else if (c === 3) st.i = true; else if (c === 4) st.u = true;
    else if (c === 22) st.b = st.d = false; else if (c === 23) st.i = false; else if (c === 24) st.u = false;
    else if (c >= 30 && c <= 37) st.fg = c - 30; else if (c >= 90 && c <= 97) st.fg = c - 90 + 8; else if (c === 39) st.fg = -1;
    else if (c === 38 || c === 48) {   // 256-colour or RGB: foreground maps to the nearest basic colour, background is ignored
      const mode = codes[i + 1];
      if (mode === 5) { if (c === 38) { const n = codes[i + 2]; st.fg = n >= 0 && n < 16 ? n : -1; } i += 2; }
      else if (mode === 2) i += 4;
    }
  }
}
function classOf(st) {
  let c = '';
  if (st.fg >= 0) c += ' fg' + st.fg;
  if (st.b) c += ' ansi-b'; if (st.d) c += ' ansi-d'; if (st.i) c += ' ansi-i'; if (st.u) c += ' ansi-u';
  return c.trim();
}
// A line's carriage returns overwrite it (progress bars): keep what follows the last one.
function foldCarriageReturns(text) {
  if (text.indexOf('\r') < 0) return text;
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    const cr = l.lastIndexOf('\r');
    if (cr >= 0) lines[i] = cr === l.length - 1 ? l.slice(l.lastIndexOf('\r', cr - 1) + 1, cr) : l.slice(cr + 1);
  }
  return lines.join('\n');
}
// Terminal output -> [{text, cls}]: the printable runs, each with the classes of its SGR state ('' when plain).
function ansiSegments(raw) {
  const text = foldCarriageReturns(raw);
  const st = { fg: -1, b: false, d: false, i: false, u: false };
  const segments = [];
  let last = 0, cls = '';
  const flush = (end) => { if (end > last) segments.push({ text: text.slice(last, end), cls }); };
  ESC_RE.lastIndex = 0;
  let m;
  while ((m = ESC_RE.exec(text)) !== null) {
    flush(m.index);
    last = ESC_RE.lastIndex;
    if (m[2] === 'm') { sgr(m[1], st); cls = classOf(st); }
    if (m[0].length === 0) ESC_RE.lastIndex++;
  }
  flush(text.length);
  return segments;
}

// ---- diffs ----
// Unified diff -> [{path, status, hunks:[{header, lines:[string]}], meta:[string]}]; one pass over the lines.
function parseUnified(diff) {
  const files = [];
  let file = null, hunk = null;
  const lines = diff.split('\n');
  if (lines.length && lines[lines.length - 1] === '') lines.pop();
  const start = (path) => { file = { path, status: '', hunks: [], meta: [], added: 0, removed: 0 }; files.push(file); hunk = null; };
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    if (l.startsWith('diff --git ')) { const m = / b\/(.*)$/.exec(l); start(m ? m[1] : l.slice(11)); continue; }
    if ((!hunk || (hunk.oldLeft <= 0 && hunk.newLeft <= 0)) && l.startsWith('--- ') && (lines[i + 1] || '').startsWith('+++ ')) {
      if (!file || file.hunks.length) start(l.slice(4).replace(/^a\//, ''));
      const b = lines[i + 1].slice(4).replace(/\t.*$/, '');
      if (b !== '/dev/null') file.path = b.replace(/^b\//, ''); else file.status = 'deleted';
      if (l.slice(4).replace(/\t.*$/, '') === '/dev/null') file.status = 'added';
      hunk = null;
      i++;
      continue;
    }
    if (l.startsWith('@@')) {
      if (!file) start('(diff)');
      const m = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/.exec(l);
      hunk = { header: l, lines: [], oldLeft: m ? (m[1] === undefined ? 1 : +m[1]) : Infinity,
               newLeft: m ? (m[2] === undefined ? 1 : +m[2]) : Infinity };
      file.hunks.push(hunk);
      continue;
    }
    if (hunk && (hunk.oldLeft > 0 || hunk.newLeft > 0 || l[0] === '\\')
        && (l[0] === '+' || l[0] === '-' || l[0] === ' ' || l[0] === '\\' || l === '')) {
      hunk.lines.push(l);
      if (l[0] === '+') { file.added++; hunk.newLeft--; }
      else if (l[0] === '-') { file.removed++; hunk.oldLeft--; }
      else if (l[0] !== '\\') { hunk.oldLeft--; hunk.newLeft--; }
      continue;
    }
    if (!file) start('(diff)');
    hunk = null;
    if (/^new file mode/.test(l)) file.status = 'added';
    else if (/^deleted file mode/.test(l)) file.status = 'deleted';
    else if (/^rename from /.test(l)) file.status = 'renamed';
    file.meta.push(l);
  }
  return files;
}
// apply_patch's own format (*** Begin Patch / *** Update File: / @@ / +- lines).
function parsePatch(patch) {
  const files = [];
  let file = null, hunk = null;
  for (const l of patch.split('\n')) {
    const m = /^\*\*\* (Update|Add|Delete) File: (.*)$/.exec(l);
    if (m) {
      file = { path: m[2], status: m[1] === 'Update' ? 'modified' : m[1] === 'Add' ? 'added' : 'deleted', hunks: [], meta: [], added: 0, removed: 0 };
      files.push(file);
      hunk = null;
      continue;
    }
    if (/^\*\*\* End Patch/.test(l)) { file = null; continue; }   // what follows (the final newline) is no file's
    if (!file || /^\*\*\* Begin Patch/.test(l) || /^\*\*\* End of File/.test(l)) continue;
    if (/^\*\*\* Move to: /.test(l)) { file.meta.push(l.slice(4)); continue; }
    if (l.startsWith('@@') || !hunk) { hunk = { header: l.startsWith('@@') ? l : '@@', lines: [] }; file.hunks.push(hunk); if (l.startsWith('@@')) continue; }
    hunk.lines.push(l);
    if (l[0] === '+') file.added++; else if (l[0] === '-') file.removed++;
  }
  return files;
}
// The hunks of a file drawn with at most `max` lines in all: {hunks:[{header, lines}], cut} (cut: lines were left out).
function limitHunks(hunks, max) {
  const shown = [];
  let room = max;
  for (const h of hunks) {
    if (room <= 0) return { hunks: shown, cut: true };
    shown.push({ header: h.header, lines: h.lines.slice(0, room) });
    room -= h.lines.length;
  }
  return { hunks: shown, cut: room < 0 };
}

// ---- which view draws a result ----
// The server names it in _meta["chat2sbx/view"]; a result without a name the card knows is drawn by its shape.
const VIEWS = ['terminal', 'diff', 'sandbox', 'sandbox-list', 'export', 'image', 'file', 'checkpoint'];
function viewOfShape(s) {
  if (typeof s.session_id === 'string' && 'output' in s) return 'terminal';
  if (Array.isArray(s.sandboxes)) return 'sandbox-list';
  if (typeof s.checkpoint_id === 'string' || (Array.isArray(s.checkpoints) && !('workspace_id' in s))) return 'checkpoint';
  if (typeof s.sandbox_id === 'string' && typeof s.state === 'string') return 'sandbox';
  if ('exported' in s) return 'export';
  if (typeof s.diff === 'string' || Array.isArray(s.files)) return 'diff';
  if (typeof s.mime_type === 'string' && num(s.width) !== null) return 'image';
  if (typeof s.path === 'string' && typeof s.sha256 === 'string' && num(s.size) !== null) return 'file';
  return 'fallback';
}
function viewOf(r) {
  if (!isObj(r) || r.isError === true || !isObj(r.structuredContent)) return 'fallback';
  const named = isObj(r._meta) ? r._meta['chat2sbx/view'] : undefined;
  return VIEWS.includes(named) ? named : viewOfShape(r.structuredContent);
}
// The tool's name for the header and the views: the result's _meta names it, else the host does.
function toolOf(r, hostToolName) {
  const meta = isObj(r) && isObj(r._meta) ? r._meta : {};
  if (typeof meta['chat2sbx/tool'] === 'string') return meta['chat2sbx/tool'];
  return hostToolName || null;
}
