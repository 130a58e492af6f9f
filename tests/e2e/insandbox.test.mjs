// The in-sandbox tools through the official MCP TypeScript SDK client against the real server on
// the fake sbx: sandbox_create attaches the control channel; bash yields then bash_poll reads the
// rest; bash_stop; bash_list; write/read/edit/search/list.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { check, fail, startServer } from './harness.mjs';

if (!process.env.CHAT2SBX_FAKE_SBX) fail('CHAT2SBX_FAKE_SBX is not set (the fake sbx is not built)');
const server = await startServer({ FAKE_SBX_TEMPLATES: `chat2sbx-shell:${process.env.CHAT2SBX_VERSION ?? ''}` });
try {
  const client = new Client({ name: 'chat2sbx-e2e-insandbox', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
  const call = async (name, args) => {
    const r = await client.callTool({ name, arguments: args }, undefined, { timeout: 120000 });
    return { isError: !!r.isError, s: r.structuredContent ?? {}, text: r.content?.[0]?.text ?? '' };
  };
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  for (const n of ['bash', 'bash_poll', 'bash_stop', 'bash_list', 'read', 'write', 'edit', 'search', 'list'])
    check(names.includes(n), `tools/list has ${n}`);

  const created = await call('sandbox_create', {});
  check(!created.isError && /^sbx_[0-9a-f]{24}$/.test(created.s.sandbox_id ?? ''), `sandbox_create: ${created.text.slice(0, 200)}`);
  const sandbox_id = created.s.sandbox_id;

  const t0 = Date.now();
  const first = await call('bash', { sandbox_id, command: 'for i in 1 2 3; do echo n$i; sleep 1; done; exit 4', yield_time_ms: 1000 });
  check(!first.isError && first.s.status === 'running' && first.s.exit_code === null, `bash yields while running (${first.text.slice(0, 200)})`);
  let out = first.s.output;
  let last = first;
  while (!(last.s.status === 'exited' && !last.s.has_more_output)) {
    last = await call('bash_poll', { sandbox_id, session_id: first.s.session_id, yield_time_ms: 5000 });
    if (last.isError) fail(`bash_poll: ${last.text}`);
    out += last.s.output;
    if (Date.now() - t0 > 30000) fail('bash_poll never saw the exit');
  }
  check(out === 'n1\nn2\nn3\n' && last.s.exit_code === 4, `bash_poll returns the rest in order and exit code 4 (${JSON.stringify(out)})`);

  const trapped = await call('bash', { sandbox_id, command: "trap '' TERM; sleep 100", yield_time_ms: 300 });
  const t1 = Date.now();
  const stopped = await call('bash_stop', { sandbox_id, session_id: trapped.s.session_id });
  check(!stopped.isError && stopped.s.status === 'exited' && Date.now() - t1 < 2500, `bash_stop ends a SIGTERM-trapping command (${Date.now() - t1} ms)`);
  const listed = await call('bash_list', { sandbox_id });
  check(!listed.isError && listed.s.sessions.length === 2, 'bash_list shows both sessions');

  const w = await call('write', { sandbox_id, path: 'src/hello.txt', content: 'hello\nworld\n' });
  check(!w.isError && w.s.bytes_written === 12, 'write creates parents and reports bytes');
  const r = await call('read', { sandbox_id, path: 'src/hello.txt' });
  check(!r.isError && r.s.content === '     1\thello\n     2\tworld\n', 'read numbers the lines');
  const e = await call('edit', { sandbox_id, path: 'src/hello.txt', old_string: 'world', new_string: 'there' });
  check(!e.isError && e.s.replacements === 1 && e.s.diff.includes('-world\n+there'), 'edit returns a diff');
  const s = await call('search', { sandbox_id, pattern: 'the+re' });
  check(!s.isError && s.s.matches.length === 1 && s.s.matches[0].file === 'src/hello.txt', 'search finds the edit');
  const l = await call('list', { sandbox_id });
  check(!l.isError && l.s.entries.some((x) => x.path === 'src/hello.txt' && x.type === 'file'), 'list shows the file');
  const missing = await call('read', { sandbox_id, path: 'nope.txt' });
  check(missing.isError && /no such file/.test(missing.text), 'read of a missing file is an isError result');
  await call('sandbox_destroy', { sandbox_id });
  await client.close();
} catch (err) {
  fail(`${err?.stack ?? err}\n--- server output ---\n${server.output().slice(-4000)}`);
} finally {
  await server.stop();
}
console.log('PASS');
