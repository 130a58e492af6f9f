// Lists the tools through the OpenAI Agents SDK (@openai/agents MCPServerStreamableHttp) with strict
// schema conversion, as an agent built on it would: every tool must convert to a strict function
// tool (the SDK silently falls back to a non-strict one when a schema cannot be made strict). Then
// runs bash as the agent's tool: the SDK hands the model only the result's content (no
// useStructuredContent), which must still carry status, exit code, session id and the output.
import { MCPServerStreamableHttp, RunContext, getAllMcpTools } from '@openai/agents';
import { check, errorText, fail, startServer } from './harness.mjs';

const server = await startServer({ CHAT2SBX_WARM_SANDBOXES: '0' });
try {
  const mcp = new MCPServerStreamableHttp({ url: server.url, name: 'chat2sbx' });
  await mcp.connect();
  const listed = await mcp.listTools();
  const tools = await getAllMcpTools({ mcpServers: [mcp], convertSchemasToStrict: true });
  check(tools.length === listed.length && tools.length >= 20, `the SDK converted all ${listed.length} tools`);
  const expected = ['apply_patch', 'view_image', 'import_file', 'bash_write', 'bash', 'read', 'write', 'edit', 'search'];
  for (const name of expected)
    check(tools.some((t) => t.name === name), `${name} is listed`);
  for (const t of tools) {
    const raw = listed.find((x) => x.name === t.name);
    check(t.strict === true, `${t.name} converts to a strict schema${t.strict ? '' : `: ${JSON.stringify(raw?.inputSchema)}`}`);
    check(t.description.length > 0 && t.description.length <= 600, `${t.name} has a short description (${t.description.length} chars)`);
  }

  const invoke = async (name, args) => tools.find((t) => t.name === name).invoke(new RunContext(), JSON.stringify(args));
  const created = await invoke('sandbox_create', { workspace_id: null, memory: null });
  const sandboxId = JSON.parse(created.text).sandbox_id;
  check(/^sbx_/.test(sandboxId ?? ''), `sandbox_create through the Agents SDK: ${created.text?.slice(0, 120)}`);
  const bash = await invoke('bash', { sandbox_id: sandboxId, command: 'printf \'a "b"\\tc\\n%.0s\' $(seq 1 500); exit 3',
    cwd: null, env: null, stdin: null, yield_time_ms: 30000, timeout_ms: null });
  check(bash?.type === 'text', `the model gets one text block (${JSON.stringify(bash).slice(0, 200)})`);
  const [head, ...rest] = bash.text.split('\n');
  const small = JSON.parse(head);
  check(small.status === 'exited' && small.exit_code === 3 && /^bash_/.test(small.session_id),
    `it starts with status, exit code and session id: ${head}`);
  check(rest.join('\n') === `--- output ---\n${'a "b"\tc\n'.repeat(500)}`, 'then the whole output, raw and once');
  await invoke('sandbox_destroy', { sandbox_id: sandboxId, force: null });
  await mcp.close();
} catch (err) {
  fail(`${errorText(err)}\n--- server output ---\n${server.output().slice(-4000)}`);
} finally {
  await server.stop();
}
console.log('PASS');
