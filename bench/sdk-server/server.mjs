// Reference MCP server on the official TypeScript SDK (@modelcontextprotocol/sdk 1.32.2) for the side-by-side
// benchmark: Streamable HTTP, stateful sessions, JSON responses (enableJsonResponse), the tool list of chat2sbx
// (tools.json, fetched from a running chat2sbx by bench/run.sh, or the committed copy), every tool answering trivially.
//   PORT=3939 TOOLS=tools.json node server.mjs
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { CallToolRequestSchema, ListToolsRequestSchema, isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';

const port = Number(process.env.PORT ?? 3939);
const toolsFile = process.env.TOOLS ?? new URL('./tools.json', import.meta.url);
const { tools } = JSON.parse(readFileSync(toolsFile, 'utf8'));
const toolNames = new Set(tools.map((t) => t.name));

// Trivial answers shaped like chat2sbx's: an empty sandbox list, and an isError for every sandbox-bound tool.
function answer(name) {
  if (!toolNames.has(name)) return { content: [{ type: 'text', text: `unknown tool ${name}` }], isError: true };
  if (name === 'sandbox_list') {
    const structuredContent = { sandboxes: [] };
    return { content: [{ type: 'text', text: JSON.stringify(structuredContent) }], structuredContent };
  }
  return { content: [{ type: 'text', text: 'unknown sandbox_id' }], isError: true };
}

function newServer() {
  const server = new Server({ name: 'sdk-reference', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (req) => answer(req.params.name));
  return server;
}

const transports = new Map();
const app = createMcpExpressApp({ host: '127.0.0.1' });

app.post('/mcp', async (req, res) => {
  const sid = req.headers['mcp-session-id'];
  let transport = sid ? transports.get(sid) : undefined;
  if (!transport) {
    if (sid || !isInitializeRequest(req.body)) {
      res.status(sid ? 404 : 400).json({ jsonrpc: '2.0', error: { code: -32000, message: 'No valid session' }, id: null });
      return;
    }
    transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: true,
      onsessioninitialized: (id) => transports.set(id, transport),
    });
    transport.onclose = () => { if (transport.sessionId) transports.delete(transport.sessionId); };
    await newServer().connect(transport);
  }
  await transport.handleRequest(req, res, req.body);
});

const bySession = async (req, res) => {
  const transport = transports.get(req.headers['mcp-session-id']);
  if (!transport) { res.status(404).end(); return; }
  await transport.handleRequest(req, res);
};
app.get('/mcp', (req, res) => res.status(405).set('Allow', 'POST, DELETE').end());
app.delete('/mcp', bySession);
app.get('/healthz', (req, res) => res.json({ ok: true }));

app.listen(port, '127.0.0.1', () => console.log(`sdk-reference listening on 127.0.0.1:${port} with ${tools.length} tools`));
