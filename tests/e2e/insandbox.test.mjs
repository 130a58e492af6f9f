// The in-sandbox tools through the official MCP TypeScript SDK v2 client (@modelcontextprotocol/client)
// against the real server on the fake sbx: sandbox_create attaches the control channel; bash yields then bash_poll reads the
// rest; bash_stop; bash_list; bash_write; write/read/edit/search/list; apply_patch; view_image;
// import_file from a local https server (self-signed certificate trusted through the test-only CA
// setting, allow-list localhost:<port>).
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { check, errorText, fail, startServer } from './harness.mjs';

if (!process.env.CHAT2SBX_FAKE_SBX) fail('CHAT2SBX_FAKE_SBX is not set (the fake sbx is not built)');
const tlsDir = mkdtempSync(path.join(os.tmpdir(), 'chat2sbx-e2e-tls-'));
execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${tlsDir}/key.pem`, '-out', `${tlsDir}/cert.pem`,
  '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost'], { stdio: 'ignore' });
const attachment = Buffer.from('attached bytes\n');
const files = https.createServer({ key: readFileSync(`${tlsDir}/key.pem`), cert: readFileSync(`${tlsDir}/cert.pem`) },
  (req, res) => { res.writeHead(req.url === '/file-1' ? 200 : 404); res.end(req.url === '/file-1' ? attachment : ''); });
await new Promise((resolve) => files.listen(0, '127.0.0.1', resolve));
const filesPort = files.address().port;
const server = await startServer({
  FAKE_SBX_TEMPLATES: `chat2sbx-shell:${process.env.CHAT2SBX_VERSION ?? ''}`,
  CHAT2SBX_IMPORT_FILE_HOSTS: `localhost:${filesPort}`,
  CHAT2SBX_TEST_IMPORT_CA_FILE: `${tlsDir}/cert.pem`,
});
try {
  const client = new Client({ name: 'chat2sbx-e2e-insandbox', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
  const call = async (name, args) => {
    const r = await client.callTool({ name, arguments: args }, { timeout: 120000 });
    return { isError: !!r.isError, s: r.structuredContent ?? {}, text: r.content?.[0]?.text ?? '', content: r.content ?? [] };
  };
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  for (const n of ['bash', 'bash_poll', 'bash_stop', 'bash_list', 'bash_write', 'read', 'write', 'edit', 'search', 'list',
    'apply_patch', 'view_image', 'import_file'])
    check(names.includes(n), `tools/list has ${n}`);
  check(JSON.stringify(tools.find((t) => t.name === 'import_file')._meta?.['openai/fileParams']) === '["file"]',
    'import_file declares _meta openai/fileParams');

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
  const timed = await call('bash', { sandbox_id, command: 'sleep 30', timeout_ms: 1000, yield_time_ms: 8000 });
  check(!timed.isError && timed.s.exit_code === 124 && timed.s.timed_out === true, `timeout_ms ends with 124 and timed_out (${timed.text.slice(0, 200)})`);
  const env = await call('bash', { sandbox_id, command: 'echo $GREETING', env: [{ name: 'GREETING', value: 'hi there' }] });
  check(!env.isError && env.s.output === 'hi there\n', 'env is an array of name/value pairs');
  const asking = await call('bash', { sandbox_id, command: 'read x; echo got $x', stdin: true, yield_time_ms: 300 });
  check(!asking.isError && asking.s.status === 'running', 'a command waiting for input keeps running');
  const answered = await call('bash_write', { sandbox_id, session_id: asking.s.session_id, input: 'yes\n', yield_time_ms: 5000 });
  check(!answered.isError && answered.s.output.includes('got yes'), `bash_write answers the prompt (${answered.text.slice(0, 200)})`);

  const w = await call('write', { sandbox_id, path: 'src/hello.txt', content: 'hello\nworld\n' });
  check(!w.isError && w.s.bytes_written === 12, 'write creates parents and reports bytes');
  const r = await call('read', { sandbox_id, path: 'src/hello.txt' });
  check(!r.isError && r.s.content === '     1\thello\n     2\tworld\n', 'read numbers the lines');
  const e = await call('edit', { sandbox_id, path: 'src/hello.txt', old_string: 'world', new_string: 'there' });
  check(!e.isError && e.s.replacements === 1 && e.s.diff.includes('-world\n+there'), 'edit returns a diff');
  const s = await call('search', { sandbox_id, pattern: 'the+re', regex: true });
  check(!s.isError && s.s.matches.length === 1 && s.s.matches[0].file === 'src/hello.txt', 'search finds the edit');
  const l = await call('list', { sandbox_id });
  check(!l.isError && l.s.entries.some((x) => x.path === 'src/hello.txt' && x.type === 'file'), 'list shows the file');
  check(!r.isError && /^[0-9a-f]{64}$/.test(r.s.sha256), 'read returns the sha256');
  const stale = await call('write', { sandbox_id, path: 'src/hello.txt', content: 'x', expected_sha256: r.s.sha256 });
  check(stale.isError && /has changed/.test(stale.text), 'write with an outdated expected_sha256 is refused');
  const patched = await call('apply_patch', { sandbox_id, patch: '*** Begin Patch\n*** Update File: src/hello.txt\n@@\n hello\n-there\n+patched\n*** Add File: src/new.txt\n+new\n*** End Patch\n' });
  check(!patched.isError && patched.s.files.length === 2, `apply_patch changes two files (${patched.text.slice(0, 300)})`);
  const reread = await call('read', { sandbox_id, path: 'src/hello.txt', start_line: 2, end_line: 2 });
  check(reread.s.content === '     2\tpatched\n', 'read start_line/end_line shows the patched line');
  const png = 'iVBORw0KGgoAAAANSUhEUgAAAAIAAAABCAIAAAB7QOjdAAAADUlEQVR4nGP4zwAE/wEHAAH/4iOeWQAAAABJRU5ErkJggg==';
  await call('bash', { sandbox_id, command: `echo ${png} | base64 -d > pic.png` });
  const image = await call('view_image', { sandbox_id, path: 'pic.png' });
  const block = image.content.find((c) => c.type === 'image');
  check(!image.isError && image.s.width === 2 && image.s.height === 1 && block?.mimeType === 'image/png' && block.data === png,
    `view_image returns image content (${image.text.slice(0, 200)})`);
  const imported = await call('import_file', { sandbox_id, file: { download_url: `https://localhost:${filesPort}/file-1`, file_id: 'file-1', file_name: 'notes.txt' } });
  check(!imported.isError && imported.s.size === attachment.length && imported.s.path.endsWith('/notes.txt'), `import_file downloads the attachment (${imported.text.slice(0, 300)})`);
  const catted = await call('read', { sandbox_id, path: 'notes.txt' });
  check(catted.s.content === '     1\tattached bytes\n', 'the imported file is in the workspace');
  const refused = await call('import_file', { sandbox_id, file: { download_url: 'https://example.com/x', file_id: 'f' } });
  check(refused.isError && /not one of the allowed/.test(refused.text), 'import_file refuses other hosts');
  const missing = await call('read', { sandbox_id, path: 'nope.txt' });
  check(missing.isError && /no such file/.test(missing.text), 'read of a missing file is an isError result');
  await call('sandbox_destroy', { sandbox_id });
  await client.close();
} catch (err) {
  fail(`${errorText(err)}\n--- server output ---\n${server.output().slice(-4000)}`);
} finally {
  await server.stop();
  files.close();
}
console.log('PASS');
