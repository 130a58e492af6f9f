// Lists the tools through the OpenAI Agents SDK (@openai/agents MCPServerStreamableHttp) with strict
// schema conversion, as an agent built on it would: every tool must convert to a strict function
// tool (the SDK silently falls back to a non-strict one when a schema cannot be made strict).
import { MCPServerStreamableHttp, getAllMcpTools } from '@openai/agents';
import { check, fail, startServer } from './harness.mjs';

const server = await startServer();
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
  await mcp.close();
} catch (err) {
  fail(`${err?.stack ?? err}\n--- server output ---\n${server.output().slice(-4000)}`);
} finally {
  await server.stop();
}
console.log('PASS');
