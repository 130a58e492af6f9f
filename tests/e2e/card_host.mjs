// A loopback web server that plays the MCP Apps host for the tool card in a real browser: its page
// embeds the card in a sandboxed iframe and talks to it through the OFFICIAL host bridge,
// AppBridge + PostMessageTransport from @modelcontextprotocol/ext-apps/app-bridge (2.x, built on the
// SDK v2 client), loaded as ES modules straight from node_modules (an import map resolves their bare
// imports). The card is served with the Content-Security-Policy a host derives from empty CSP domain lists.
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const modulesRoot = realpathSync(path.join(here, 'node_modules'));

// No network for the card: only inline script and style, images from data: URLs.
export const CARD_CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; "
  + "media-src data:; font-src data:; connect-src 'none'; frame-src 'none'; base-uri 'none'; form-action 'none'";

// Resolves a bare specifier as a browser bundler would: the package's `exports` under the
// "browser", "import", "default" conditions (the SDK v2 client ships a browser shim there; Node's
// own resolution would pick the Node one, which needs CommonJS modules).
const BROWSER_CONDITIONS = ['browser', 'import', 'default'];
function pickExport(target) {
  if (typeof target === 'string') return target;
  if (Array.isArray(target)) return target.map(pickExport).find(Boolean);
  if (target && typeof target === 'object')
    for (const c of BROWSER_CONDITIONS) if (c in target) { const t = pickExport(target[c]); if (t) return t; }
  return undefined;
}
function resolveBare(spec) {
  const parts = spec.split('/');
  const name = spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
  const sub = `.${spec.slice(name.length)}`;
  const dir = path.join(modulesRoot, name);
  let pkg;
  try { pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')); } catch { return undefined; }
  let target;
  if (pkg.exports) {
    const exp = typeof pkg.exports === 'string' || Array.isArray(pkg.exports) || !Object.keys(pkg.exports).some((k) => k.startsWith('.'))
      ? { '.': pkg.exports } : pkg.exports;
    target = pickExport(exp[sub]);
  } else {
    target = sub === '.' ? (pkg.module ?? pkg.main ?? 'index.js') : sub;
  }
  const file = target && path.join(dir, target);
  return file && existsSync(file) ? file : undefined;
}

// Every bare specifier the bridge's module graph imports, resolved for the browser. Relative
// specifiers that name no file (a JSDoc `import('../types/index')` type reference) are not imports.
function importMap() {
  const entrySpec = '@modelcontextprotocol/ext-apps/app-bridge';
  const entry = resolveBare(entrySpec);
  const imports = {};
  const seen = new Set();
  const queue = [entry];
  const toUrl = (file) => `/node_modules/${path.relative(modulesRoot, realpathSync(file)).split(path.sep).join('/')}`;
  imports[entrySpec] = toUrl(entry);
  const re = /(?:\bimport|\bexport)\s*(?:[\w*{}\s,$]*?\bfrom\s*)?["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g;
  while (queue.length) {
    const file = queue.pop();
    if (seen.has(file)) continue;
    seen.add(file);
    const source = readFileSync(file, 'utf8');
    for (const m of source.matchAll(re)) {
      const spec = m[1] ?? m[2];
      if (spec.startsWith('.')) {
        const rel = path.resolve(path.dirname(file), spec);
        if (existsSync(rel) && statSync(rel).isFile()) queue.push(rel);
        continue;
      }
      const resolved = resolveBare(spec);
      if (!resolved) continue;
      imports[spec] = toUrl(resolved);
      queue.push(resolved);
    }
  }
  return { imports };
}

const HOST_PAGE = (map) => `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>MCP Apps host</title><link rel="icon" href="data:,">
<script type="importmap">${JSON.stringify(map)}</script>
<style>body{margin:0;padding:16px;background:#888}iframe{display:block;width:760px;border:0;height:80px}</style>
</head><body>
<script type="module">
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';
let current = null;
// Mounts the card for one tool call and resolves once the card has drawn the result and reported its size.
window.mountCard = async ({ tool, input, result, theme }) => {
  if (current) { try { await current.bridge.close(); } catch {} current.frame.remove(); }
  const frame = document.createElement('iframe');
  frame.setAttribute('sandbox', 'allow-scripts');
  frame.title = tool;
  document.body.appendChild(frame);
  const sizes = [];
  const bridge = new AppBridge(null, { name: 'chat2sbx-browser-test', version: '1.0.0' }, { openLinks: {} },
    { hostContext: { theme, displayMode: 'inline', platform: 'web', toolInfo: { tool: { name: tool, inputSchema: { type: 'object' } } } } });
  let resultSent;
  const sent = new Promise((resolve) => { resultSent = resolve; });
  bridge.oninitialized = async () => {
    await bridge.sendToolInput({ arguments: input });
    await bridge.sendToolResult(result);
    resultSent(sizes.length);
  };
  bridge.onsizechange = ({ width, height }) => {
    sizes.push({ width, height });
    frame.style.height = height + 'px';
  };
  bridge.onopenlink = async ({ url }) => { window.openedLinks = [...(window.openedLinks || []), url]; return {}; };
  current = { bridge, frame, sizes };
  await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow));
  const t0 = performance.now();
  frame.src = '/card.html';
  const before = await sent;
  // The card reports its size after every render; wait for one that follows the result.
  const deadline = Date.now() + 10000;
  while (sizes.length <= before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  return { sizes, ms: performance.now() - t0, appVersion: bridge.getAppVersion() };
};
window.lastSize = () => current && current.sizes.at(-1);
window.setTheme = (theme) => current.bridge.sendHostContextChange({ theme });
window.hostReady = true;
</script></body></html>`;

export async function startCardHost(cardHtml) {
  const map = importMap();
  const page = HOST_PAGE(map);
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    if (url.pathname === '/host.html') {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      return res.end(page);
    }
    if (url.pathname === '/card.html') {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': CARD_CSP });
      return res.end(cardHtml);
    }
    if (url.pathname.startsWith('/node_modules/') && /\.m?js$/.test(url.pathname)) {
      const file = path.resolve(modulesRoot, decodeURIComponent(url.pathname.slice('/node_modules/'.length)));
      if (file.startsWith(modulesRoot + path.sep)) {
        try {
          const body = readFileSync(file);
          res.writeHead(200, { 'Content-Type': 'text/javascript; charset=utf-8' });
          return res.end(body);
        } catch { /* fall through to 404 */ }
      }
    }
    res.writeHead(404);
    res.end();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${server.address().port}`;
  return { origin, close: () => new Promise((resolve) => server.close(resolve)) };
}
