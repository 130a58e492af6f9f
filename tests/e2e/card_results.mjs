// Records real CallToolResults for the tool card from `chat2sbx serve` on the fake sbx, through the
// official MCP TypeScript SDK v2 client (@modelcontextprotocol/client, legacy era) introducing itself
// as ChatGPT does ("openai-mcp"): a clone workspace (approved with the CLI), bash in its forms, the edit tools, show_changes (small and 300
// files), export_changes, the sandbox tools, view_image, a checkpoint and a restore, an error and a tool
// without a card.
// Returns the card page as resources/read serves it and, per case, {tool, input, result}.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { check, fail } from './harness.mjs';

export const CARD_URI = 'ui://widget/chat2sbx-tool-card.html';
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAIAAAABCAIAAAB7QOjdAAAADUlEQVR4nGP4zwAE/wEHAAH/4iOeWQAAAABJRU5ErkJggg==';

export function makeRepo(root) {
  const repo = path.join(root, 'project');
  mkdirSync(repo);
  const git = (...args) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' }).trim();
  git('init', '-q', '-b', 'main');
  writeFileSync(path.join(repo, 'README.md'), 'project\n');
  git('add', '.');
  git('-c', 'user.name=u', '-c', 'user.email=u@example.com', 'commit', '-qm', 'initial');
  return repo;
}

export async function recordResults(server, repo) {
  const client = new Client({ name: 'openai-mcp', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
  const cases = {};
  const call = async (key, tool, input, { allowError = false } = {}) => {
    const result = await client.callTool({ name: tool, arguments: input }, { timeout: 120000 });
    if (result.isError && !allowError) fail(`${tool}: ${JSON.stringify(result).slice(0, 400)}`);
    if (key) cases[key] = { tool, input, result };
    return result;
  };

  const page = (await client.readResource({ uri: CARD_URI })).contents[0];
  check(page.mimeType === 'text/html;profile=mcp-app' && page.text.includes('ui/initialize'), 'resources/read serves the card');

  const req = await call(null, 'workspace_request', { host_path: repo, mode: 'clone', reason: 'browser test' });
  const approve = spawnSync(process.env.CHAT2SBX_BINARY, ['approval', 'approve', req.structuredContent.approval_id], { env: server.env, encoding: 'utf8' });
  if (approve.status !== 0) fail(`approval approve: ${approve.stderr}`);
  const granted = await call(null, 'workspace_request', { host_path: repo, mode: 'clone' });
  const created = await call('sandbox_create', 'sandbox_create', { workspace_id: granted.structuredContent.workspace_id });
  const sandbox_id = created.structuredContent.sandbox_id;
  await call('sandbox_expose', 'sandbox_expose', { sandbox_id, port: 8000 }, { allowError: true });
  await call('sandbox_get', 'sandbox_get', { sandbox_id });
  await call('sandbox_list', 'sandbox_list', {});

  await call('bash_ansi', 'bash', { sandbox_id, command:
    "printf '\\033[1;32mPASS\\033[0m build \\033[31mred\\033[0m \\033[38;5;208mx\\033[0m\\n\\033]0;title\\007\\033[2Kdone\\ttab\\n'; printf 'bar 10%%\\rbar 100%%\\n'" });
  await call('bash_markup', 'bash', { sandbox_id, command:
    "echo '<img src=/pwned onerror=\"parent.postMessage(1,\\\"*\\\")\"><script>fetch(\"/pwned\")</script>'; exit 3" });
  const running = await call('bash_running', 'bash', { sandbox_id, command: 'echo start; sleep 2; echo end', yield_time_ms: 300 });
  await call('bash_poll', 'bash_poll', { sandbox_id, session_id: running.structuredContent.session_id, yield_time_ms: 10000 });
  const asking = await call(null, 'bash', { sandbox_id, command: 'read x; echo got $x', stdin: true, yield_time_ms: 300 });
  await call('bash_write', 'bash_write', { sandbox_id, session_id: asking.structuredContent.session_id, input: 'yes\n', yield_time_ms: 5000 });
  const sleeper = await call(null, 'bash', { sandbox_id, command: 'echo sleeping; sleep 100', yield_time_ms: 300 });
  await call('bash_stop', 'bash_stop', { sandbox_id, session_id: sleeper.structuredContent.session_id });
  // About 60 KB of coloured lines: the most one result holds.
  await call('bash_60k', 'bash', { sandbox_id, yield_time_ms: 30000, command:
    "for i in $(seq 1 1400); do printf 'line %04d \\033[33mwarn\\033[0m %s\\n' $i 'the quick brown fox jumps over the lazy dog'; done" });

  await call('write', 'write', { sandbox_id, path: 'src/hello.txt', content: 'hello\nworld\n' });
  await call('edit', 'edit', { sandbox_id, path: 'src/hello.txt', old_string: 'world', new_string: 'there' });
  await call('apply_patch', 'apply_patch', { sandbox_id, patch:
    '*** Begin Patch\n*** Update File: src/hello.txt\n@@\n hello\n-there\n+patched\n*** Add File: src/new.txt\n+new\n*** End Patch\n' });
  await call(null, 'bash', { sandbox_id, command: "git add -A && git -c user.name=a -c user.email=a@example.com commit -qm 'Add hello' && echo notes > NOTES.md" });
  await call('show_changes', 'show_changes', { sandbox_id });
  await call('export_changes', 'export_changes', { sandbox_id });
  await call(null, 'bash', { sandbox_id, yield_time_ms: 30000, command:
    'mkdir -p many && for i in $(seq 1 300); do printf "file %d\\nsecond line\\n" $i > many/f$i.txt; done && git add -A' });
  await call('show_changes_300', 'show_changes', { sandbox_id });

  await call(null, 'bash', { sandbox_id, command: `echo ${PNG} | base64 -d > pic.png` });
  await call('view_image', 'view_image', { sandbox_id, path: 'pic.png' });
  await call('export_file_image', 'export_file', { sandbox_id, path: 'pic.png' });
  await call('export_file_text', 'export_file', { sandbox_id, path: 'src/hello.txt' });
  await call('error', 'read', { sandbox_id, path: 'nope.txt' }, { allowError: true });
  await call('no_card', 'search', { sandbox_id, pattern: 'patched' });

  // A scratch sandbox's checkpoint, its list and a restore (clone sandboxes are not checkpointed yet).
  const scratch = (await call(null, 'sandbox_create', {})).structuredContent.sandbox_id;
  const saved = await call('sandbox_checkpoint', 'sandbox_checkpoint', { sandbox_id: scratch, label: 'before the upgrade' });
  await call('sandbox_checkpoints', 'sandbox_checkpoints', { sandbox_id: scratch });
  await call('sandbox_restore', 'sandbox_restore', { sandbox_id: scratch, checkpoint_id: saved.structuredContent.checkpoint_id });
  await call(null, 'sandbox_destroy', { sandbox_id: scratch });

  // A cloud sandbox (the browser test's server allows them): where it runs and what its end does.
  const inCloud = await call('sandbox_create_cloud', 'sandbox_create', { placement: 'cloud', size: 'micro', ttl: '2h' });
  await call(null, 'sandbox_destroy', { sandbox_id: inCloud.structuredContent.sandbox_id });

  await call(null, 'sandbox_destroy', { sandbox_id, force: true });
  await client.close();
  return { cardHtml: page.text, cases };
}
