// The clone-mode loop through the official MCP TypeScript SDK v2 client (@modelcontextprotocol/client)
// against the real server on the fake sbx: workspace_request (with a reason) → the user approves with the CLI → sandbox_create on the
// repository → the agent commits and edits → show_changes → export_changes makes the host branch
// chat2sbx/<id> without touching the checkout → sandbox_destroy saves the rest first.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { check, errorText, fail, startServer } from './harness.mjs';

if (!process.env.CHAT2SBX_FAKE_SBX) fail('CHAT2SBX_FAKE_SBX is not set (the fake sbx is not built)');
const roots = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'chat2sbx-e2e-repos-')));
const repo = path.join(roots, 'project');
mkdirSync(repo);
const git = (...args) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' }).trim();
git('init', '-q', '-b', 'main');
writeFileSync(path.join(repo, 'README.md'), 'project\n');
git('add', '.');
git('-c', 'user.name=u', '-c', 'user.email=u@example.com', 'commit', '-qm', 'initial');
const hostState = () => [git('status', '--porcelain'), git('rev-parse', 'HEAD'), git('symbolic-ref', 'HEAD')].join('|');

const server = await startServer({ CHAT2SBX_ALLOWED_HOST_ROOTS: roots });
try {
  const client = new Client({ name: 'chat2sbx-e2e-clone', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
  const call = async (name, args) => {
    const r = await client.callTool({ name, arguments: args }, { timeout: 120000 });
    return { isError: !!r.isError, s: r.structuredContent ?? {}, text: r.content?.[0]?.text ?? '' };
  };
  const names = (await client.listTools()).tools.map((t) => t.name);
  for (const n of ['show_changes', 'export_changes', 'workspace_request']) check(names.includes(n), `tools/list has ${n}`);

  const req = await call('workspace_request', { host_path: repo, mode: 'clone', reason: 'fix the README' });
  check(!req.isError && req.s.status === 'approval_required', `workspace_request waits for the user (${req.text.slice(0, 200)})`);
  const list = spawnSync(process.env.CHAT2SBX_BINARY, ['approval', 'list'], { env: server.env, encoding: 'utf8' });
  check(list.stdout.includes('chat2sbx-e2e-clone') && list.stdout.includes('fix the README'), 'approval list shows the client and the reason');
  const approve = spawnSync(process.env.CHAT2SBX_BINARY, ['approval', 'approve', req.s.approval_id], { env: server.env, encoding: 'utf8' });
  check(approve.status === 0, `the user approves (${approve.stderr})`);
  const granted = await call('workspace_request', { host_path: repo, mode: 'clone' });
  check(granted.s.status === 'approved', 'approved: workspace_id');

  const created = await call('sandbox_create', { workspace_id: granted.s.workspace_id });
  check(!created.isError && created.s.workspace_mode === 'clone', `sandbox_create on the clone (${created.text.slice(0, 200)})`);
  const sandbox_id = created.s.sandbox_id;
  const branch = `chat2sbx/${sandbox_id}`;
  const bash = async (command) => {
    const r = await call('bash', { sandbox_id, command, yield_time_ms: 30000 });
    if (r.isError || r.s.exit_code !== 0) fail(`bash ${command}: ${r.text.slice(0, 400)}`);
    return r.s.output;
  };
  await bash("echo 'project, improved' > README.md && git -c user.name=agent -c user.email=a@example.com commit -qam 'Improve README'");
  await bash('echo notes > NOTES.md');

  const shown = await call('show_changes', { sandbox_id });
  check(!shown.isError && shown.s.commits.length === 1 && shown.s.commits[0].subject === 'Improve README', 'show_changes lists the commit');
  const files = Object.fromEntries(shown.s.files.map((f) => [f.path, f.where.join(',')]));
  check(files['README.md'] === 'committed' && files['NOTES.md'] === 'untracked', `show_changes lists the committed and the untracked file (${JSON.stringify(files)})`);
  check(shown.s.diff.includes('--- a/README.md\n+++ b/README.md'), 'the diff has workspace-relative headers');

  const before = hostState();
  const exported = await call('export_changes', { sandbox_id });
  check(!exported.isError && exported.s.branch === branch && exported.s.includes_uncommitted_changes, `export_changes makes ${branch}`);
  check(git('log', '--format=%s', `main..${branch}`).split('\n').length === 2, 'the branch holds the commit and the uncommitted changes');
  check(git('show', `${branch}:NOTES.md`) === 'notes', 'the untracked file is on the branch');
  check(hostState() === before, 'the host checkout is untouched');

  await bash('echo later >> NOTES.md');
  const destroyed = await call('sandbox_destroy', { sandbox_id });
  check(!destroyed.isError && destroyed.s.work_saved_on_branch === branch, `sandbox_destroy saves the work first (${destroyed.text.slice(0, 300)})`);
  check(git('show', `${branch}:NOTES.md`) === 'notes\nlater', 'the branch holds the last edit');
  check(hostState() === before, 'the host checkout is still untouched');
  await client.close();
} catch (err) {
  fail(`${errorText(err)}\n--- server output ---\n${server.output().slice(-4000)}`);
} finally {
  await server.stop();
  rmSync(roots, { recursive: true, force: true });
}
console.log('PASS');
