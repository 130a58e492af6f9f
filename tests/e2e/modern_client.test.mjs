// The official MCP TypeScript SDK v2 client (@modelcontextprotocol/client 2.4.0) in each of its
// version-negotiation modes against the real server on the fake sbx: 'legacy' (initialize and a
// session, 2025-11-25), 'auto' (server/discover finds 2026-07-28) and { pin: '2026-07-28' }. Each
// runs the whole workflow: sandbox_create, write, bash that outlives its yield then bash_poll,
// bash_stop, a cancelled call (audited as cancelled), the tool card's resources/read, sandbox_destroy.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { execFileSync } from 'node:child_process';
import { check, errorText, fail, startServer } from './harness.mjs';

if (!process.env.CHAT2SBX_FAKE_SBX) fail('CHAT2SBX_FAKE_SBX is not set (the fake sbx is not built)');
const MODERN = '2026-07-28';
const CARD = 'ui://widget/chat2sbx-tool-card.html';
const CARD_MIME = 'text/html;profile=mcp-app';
const MODES = [
  { label: 'legacy', mode: 'legacy', expect: '2025-11-25' },
  { label: 'auto', mode: 'auto', expect: MODERN },
  { label: 'pin', mode: { pin: MODERN }, expect: MODERN },
];

// Cancelling a call that is still waiting (legacy: the SDK sends notifications/cancelled; modern:
// it closes the request) ends it on the server: its audit row says cancelled. The abort comes once
// bash_list shows the command, so the call is surely under way on the server.
async function cancelled(label, call, client, sandbox_id, auditRows) {
  const waiter = new AbortController();
  const waiting = client.callTool({ name: 'bash', arguments: { sandbox_id, yield_time_ms: 60000, timeout_ms: 60000,
    command: 'echo waiting; while [ ! -e released ]; do sleep 0.05; done' } }, { signal: waiter.signal, timeout: 120000 })
    .then((r) => ({ result: r }), (e) => ({ error: e }));
  let settled;
  waiting.then((x) => { settled = x; });
  for (let tries = 0; ; tries++) {
    const listed = await call('bash_list', { sandbox_id });
    // Any status: bash_list may show a session whose call has not yielded yet as "lost" (reported).
    if ((listed.s.sessions ?? []).some((x) => x.command?.startsWith('echo waiting;'))) break;
    if (settled) fail(`${label}: the waiting bash ended by itself: ${settled.error ?? JSON.stringify(settled.result).slice(0, 400)}`);
    if (tries >= 200) fail(`${label}: the waiting bash never showed in bash_list: ${listed.text}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  waiter.abort();
  const aborted = await waiting;
  check(aborted.error !== undefined, `${label}: the cancelled call rejects on the client (${aborted.error ?? JSON.stringify(aborted.result).slice(0, 200)})`);
  // The row is written when the server has ended the call; it learns of the cancel asynchronously.
  let rows = [];
  for (let tries = 0; tries < 100 && !rows.some((r) => r.outcome === 'cancelled'); tries++) {
    if (tries) await new Promise((r) => setTimeout(r, 100));
    rows = auditRows().filter((r) => r.client === `chat2sbx-e2e-${label}` && r.tool === 'bash');
  }
  const row = rows.find((r) => r.outcome === 'cancelled');
  check(row?.sandbox_id === sandbox_id && row.summary?.startsWith('echo waiting;'),
    `${label}: the server ends the cancelled call and audits it as cancelled (${JSON.stringify(row ?? rows)})`);
  await call('write', { sandbox_id, path: 'released', content: '' });
}

async function workflow(url, auditRows, { label, mode, expect }) {
  const client = new Client({ name: `chat2sbx-e2e-${label}`, version: '1.0.0' }, {
    versionNegotiation: { mode },
    // A host that draws MCP Apps says so; the card is served either way, but this is what a real host sends.
    capabilities: { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: [CARD_MIME] } } },
  });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  const version = client.getNegotiatedProtocolVersion();
  check(version === expect, `${label}: negotiated protocol ${version}`);
  check(client.getServerVersion()?.name === 'chat2sbx', `${label}: the server is chat2sbx (${JSON.stringify(client.getServerVersion())})`);
  if (expect === MODERN) {
    const discovered = client.getDiscoverResult();
    check(discovered?.supportedVersions?.[0] === MODERN && discovered.supportedVersions.includes('2025-11-25'),
      `${label}: server/discover offers ${JSON.stringify(discovered?.supportedVersions)}`);
    check(transport.sessionId === undefined, `${label}: no Mcp-Session-Id in the modern era`);
  } else {
    check(typeof transport.sessionId === 'string' && transport.sessionId.length >= 16, `${label}: a legacy session (${transport.sessionId})`);
  }

  const call = async (name, args) => {
    const r = await client.callTool({ name, arguments: args }, { timeout: 120000 });
    return { isError: !!r.isError, s: r.structuredContent ?? {}, text: r.content?.[0]?.text ?? '' };
  };
  const { tools } = await client.listTools();
  for (const n of ['sandbox_create', 'write', 'bash', 'bash_poll', 'sandbox_destroy'])
    check(tools.some((t) => t.name === n), `${label}: tools/list has ${n}`);
  const cardUri = tools.find((t) => t.name === 'bash')?._meta?.ui?.resourceUri;
  check(cardUri === CARD, `${label}: bash points at the tool card (${cardUri})`);

  const created = await call('sandbox_create', {});
  check(!created.isError && /^sbx_[0-9a-f]{24}$/.test(created.s.sandbox_id ?? ''), `${label}: sandbox_create (${created.text.slice(0, 160)})`);
  const sandbox_id = created.s.sandbox_id;
  const written = await call('write', { sandbox_id, path: 'notes/hello.txt', content: `hello from ${label}\n` });
  check(!written.isError && written.s.bytes_written === `hello from ${label}\n`.length, `${label}: write (${written.text.slice(0, 160)})`);

  // The command waits for a file that only the next call creates, so it outlives bash's yield
  // whatever the machine's speed, and bash_poll must collect the rest.
  const first = await call('bash', { sandbox_id, yield_time_ms: 300, timeout_ms: 60000,
    command: 'cat notes/hello.txt; while [ ! -e go ]; do sleep 0.05; done; echo done; exit 5' });
  check(!first.isError && first.s.status === 'running' && /^bash_/.test(first.s.session_id ?? ''),
    `${label}: bash yields while the command runs (${first.text.slice(0, 200)})`);
  const go = await call('write', { sandbox_id, path: 'go', content: '' });
  check(!go.isError, `${label}: a second call runs while the command is running`);
  let output = first.s.output ?? '';
  let last = first;
  for (let polls = 0; !(last.s.status === 'exited' && !last.s.has_more_output); polls++) {
    if (polls >= 100) fail(`${label}: bash_poll never saw the exit: ${last.text.slice(0, 300)}`);
    last = await call('bash_poll', { sandbox_id, session_id: first.s.session_id, yield_time_ms: 5000 });
    if (last.isError) fail(`${label}: bash_poll: ${last.text}`);
    output += last.s.output ?? '';
  }
  check(output === `hello from ${label}\ndone\n` && last.s.exit_code === 5,
    `${label}: bash_poll returns the rest and exit code 5 (${JSON.stringify(output)}, ${last.s.exit_code})`);

  // bash_stop ends a command that would never end by itself.
  const endless = await call('bash', { sandbox_id, yield_time_ms: 300, command: 'echo started; while [ ! -e never ]; do sleep 0.05; done' });
  check(!endless.isError && endless.s.status === 'running', `${label}: an endless command runs (${endless.text.slice(0, 160)})`);
  const stopped = await call('bash_stop', { sandbox_id, session_id: endless.s.session_id });
  check(!stopped.isError && stopped.s.status === 'exited', `${label}: bash_stop ends it (${stopped.text.slice(0, 200)})`);

  await cancelled(label, call, client, sandbox_id, auditRows);

  const read = await client.readResource({ uri: cardUri });
  const page = read.contents?.[0];
  check(page?.uri === CARD && page.mimeType === CARD_MIME && page.text?.startsWith('<!DOCTYPE html>'),
    `${label}: resources/read returns the card (${page?.mimeType}, ${page?.text?.length} characters)`);

  const destroyed = await call('sandbox_destroy', { sandbox_id });
  check(!destroyed.isError && destroyed.s.destroyed === true, `${label}: sandbox_destroy (${destroyed.text.slice(0, 160)})`);
  const gone = await call('sandbox_get', { sandbox_id });
  check(gone.isError || gone.s.state === 'destroyed', `${label}: sandbox_get says it is gone (${gone.text.slice(0, 160)})`);
  await client.close();
}

const server = await startServer({ CHAT2SBX_WARM_SANDBOXES: '0' });
const auditRows = () => execFileSync(process.env.CHAT2SBX_BINARY, ['audit', '--json', '--limit', '200'],
  { env: server.env, encoding: 'utf8', timeout: 30000 }).split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
try {
  for (const m of MODES) await workflow(server.url, auditRows, m);
} catch (err) {
  fail(`${errorText(err)}\n--- server output ---\n${server.output().slice(-4000)}`);
} finally {
  await server.stop();
}
console.log('PASS');
