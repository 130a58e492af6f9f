// Replays what ChatGPT's MCP client (OpenAI's hosted connector, MCP 2026-07-28) sends, with plain
// fetch against the real server on the fake sbx: its `server/discover` probe (id
// "openai-mcp-discover", the captured _meta; once without and once with the MCP-Protocol-Version
// header), then a modern tools/list and tools/calls (sandbox_create, bash, sandbox_destroy) carrying
// the conversation id in _meta["openai/session"]; `chat2sbx audit --json` must then name that
// conversation, and ChatGPT's bash text must be the short summary it gets after initialize too.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { check, errorText, fail, startServer } from './harness.mjs';

if (!process.env.CHAT2SBX_FAKE_SBX) fail('CHAT2SBX_FAKE_SBX is not set (the fake sbx is not built)');
const MODERN = '2026-07-28';
// As captured from ChatGPT (issue 35).
const PROBE_META = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'openai-mcp', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {
    extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } },
  },
};
const conversation = `v1/${randomBytes(16).toString('hex')}`;

// One JSON-RPC POST; the answer may be JSON or an SSE stream whose last data line is the response.
async function post(url, body, headers = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  let message;
  if ((res.headers.get('content-type') ?? '').includes('text/event-stream')) {
    const events = [...text.matchAll(/^data: ?(.*)$/gm)].map((m) => JSON.parse(m[1]));
    message = events.find((e) => e.id === body.id && ('result' in e || 'error' in e));
  } else {
    try { message = JSON.parse(text); } catch { message = undefined; }
  }
  return { status: res.status, headers: res.headers, text, message };
}

const server = await startServer({ CHAT2SBX_WARM_SANDBOXES: '0' });
try {
  const discover = { jsonrpc: '2.0', id: 'openai-mcp-discover', method: 'server/discover', params: { _meta: PROBE_META } };
  for (const [label, headers] of [['without a version header', {}], ['with MCP-Protocol-Version', { 'MCP-Protocol-Version': MODERN }]]) {
    const r = await post(server.url, discover, headers);
    check(r.status === 200 && r.message?.id === 'openai-mcp-discover' && r.message.result,
      `probe ${label}: HTTP ${r.status}, ${r.text.slice(0, 300)}`);
    const result = r.message.result;
    check(result.supportedVersions?.[0] === MODERN && result.supportedVersions.includes('2025-11-25'),
      `probe ${label}: supportedVersions ${JSON.stringify(result.supportedVersions)}`);
    check(result.capabilities?.tools && result.capabilities.resources, `probe ${label}: capabilities has tools and resources`);
    check(result.capabilities.extensions?.['io.modelcontextprotocol/ui'] !== undefined,
      `probe ${label}: capabilities declare the io.modelcontextprotocol/ui extension`);
    check(result._meta?.['io.modelcontextprotocol/serverInfo']?.name === 'chat2sbx',
      `probe ${label}: serverInfo in _meta (${JSON.stringify(result._meta)})`);
    check(typeof result.instructions === 'string' && result.instructions.includes('sandbox_create'), `probe ${label}: instructions`);
    check(r.headers.get('mcp-session-id') === null, `probe ${label}: no Mcp-Session-Id in the reply`);
  }

  const modern = (method, name) => ({ 'MCP-Protocol-Version': MODERN, 'Mcp-Method': method, ...(name ? { 'Mcp-Name': name } : {}) });
  const list = await post(server.url, { jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: PROBE_META } }, modern('tools/list'));
  const tools = list.message?.result?.tools ?? [];
  check(list.status === 200 && tools.some((t) => t.name === 'sandbox_create') && tools.some((t) => t.name === 'bash'),
    `modern tools/list: HTTP ${list.status}, ${tools.length} tools`);
  check(Number.isInteger(list.message.result.ttlMs) && ['public', 'private'].includes(list.message.result.cacheScope),
    `modern tools/list carries ttlMs ${list.message.result.ttlMs} and cacheScope ${list.message.result.cacheScope}`);
  check(list.headers.get('mcp-session-id') === null, 'modern tools/list: no Mcp-Session-Id');

  const meta = { ...PROBE_META, 'openai/session': conversation };
  const created = await post(server.url, { jsonrpc: '2.0', id: 3, method: 'tools/call',
    params: { name: 'sandbox_create', arguments: {}, _meta: meta } }, modern('tools/call', 'sandbox_create'));
  const sandboxId = created.message?.result?.structuredContent?.sandbox_id;
  check(created.status === 200 && created.message.result.isError === false && /^sbx_[0-9a-f]{24}$/.test(sandboxId ?? ''),
    `modern tools/call sandbox_create: HTTP ${created.status}, ${created.text.slice(0, 300)}`);
  check(created.headers.get('mcp-session-id') === null, 'modern tools/call: no Mcp-Session-Id');

  // The client's identity comes from each request's _meta: ChatGPT gets the short text block
  // (structuredContent holds the output), as it does after initialize (tool_cards.test.mjs).
  const bash = await post(server.url, { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'bash',
    arguments: { sandbox_id: sandboxId, command: 'for i in $(seq 1 2000); do echo "line $i"; done', yield_time_ms: 30000 }, _meta: meta } },
  modern('tools/call', 'bash'));
  const ran = bash.message?.result;
  const summary = ran?.content?.[0]?.text ?? '';
  check(bash.status === 200 && ran?.structuredContent?.exit_code === 0 && ran.structuredContent.output.includes('line 2000\n'),
    `modern bash: HTTP ${bash.status}, ${JSON.stringify(ran?.structuredContent ?? bash.text).slice(0, 200)}`);
  check(summary.length < 400 && !summary.includes('line 1\n'), `ChatGPT's modern bash text is a summary: ${summary}`);

  const destroyed = await post(server.url, { jsonrpc: '2.0', id: 4, method: 'tools/call',
    params: { name: 'sandbox_destroy', arguments: { sandbox_id: sandboxId }, _meta: meta } }, modern('tools/call', 'sandbox_destroy'));
  check(destroyed.status === 200 && destroyed.message?.result?.isError === false, `modern sandbox_destroy: ${destroyed.text.slice(0, 200)}`);

  // Audit rows are written when a call ends, before its answer; read back the way a user would.
  // This server ran one sandbox_create; its row names the sandbox it made, so the conversation
  // that created a sandbox can be found.
  const rows = execFileSync(process.env.CHAT2SBX_BINARY, ['audit', '--json', '--limit', '20'], { env: server.env, encoding: 'utf8', timeout: 30000 })
    .split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
  const creates = rows.filter((r) => r.tool === 'sandbox_create');
  check(creates.length === 1 && creates[0].conversation === conversation && creates[0].client === 'openai-mcp'
    && creates[0].outcome === 'ok' && creates[0].sandbox_id === sandboxId,
  `chat2sbx audit --json: the sandbox_create row names the conversation, the client and the sandbox: ${JSON.stringify(creates)}`);
  const destroy = rows.find((r) => r.tool === 'sandbox_destroy' && r.sandbox_id === sandboxId);
  check(destroy?.conversation === conversation, `the sandbox_destroy row names it too: ${JSON.stringify(destroy ?? rows)}`);
  const bashRow = rows.find((r) => r.tool === 'bash' && r.sandbox_id === sandboxId);
  check(bashRow?.conversation === conversation, `and the bash row: ${JSON.stringify(bashRow ?? rows)}`);
  check(rows.every((r) => r.session === null), 'modern calls have no session in the audit');
} catch (err) {
  fail(`${errorText(err)}\n--- server output ---\n${server.output().slice(-4000)}`);
} finally {
  await server.stop();
}
console.log('PASS');
