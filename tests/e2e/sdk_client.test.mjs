// The official MCP TypeScript SDK v2 client (@modelcontextprotocol/client, default 'legacy' era)
// against the real server: initialize, tools/list, tools/call, DELETE, then the old session id gets
// 404 and the client re-initializes. The modern era is modern_client.test.mjs.
import { Client, ProtocolError, SdkHttpError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { check, errorText, fail, startServer } from './harness.mjs';

const server = await startServer();
try {
  const url = new URL(server.url);
  const client = new Client({ name: 'chat2sbx-e2e', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(url);
  await client.connect(transport);
  const info = client.getServerVersion();
  check(info?.name === 'chat2sbx', `initialize: serverInfo.name is chat2sbx (got ${JSON.stringify(info)})`);
  check(typeof transport.sessionId === 'string' && /^[\x21-\x7e]{16,}$/.test(transport.sessionId),
    `initialize: Mcp-Session-Id issued (${transport.sessionId})`);
  check(['2025-11-25', '2025-06-18'].includes(transport.protocolVersion), `negotiated protocol ${transport.protocolVersion}`);
  check((client.getInstructions() ?? '').slice(0, 512).includes('sandbox_create'), 'instructions mention sandbox_create early');
  await client.ping();
  console.log('ok: ping');

  const { tools } = await client.listTools();
  console.log(`tools/list: ${tools.length} tools: ${tools.map((t) => t.name).join(', ')}`);
  for (const t of tools) {
    check(t.description && t.inputSchema?.type === 'object', `tool ${t.name} has a description and an object inputSchema`);
    const a = t.annotations ?? {};
    check(['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'].every((k) => typeof a[k] === 'boolean'),
      `tool ${t.name} sets all four annotations explicitly`);
  }

  if (tools.some((t) => t.name === 'sandbox_list')) {
    const r = await client.callTool({ name: 'sandbox_list', arguments: {} });
    check(r.isError === false && r.structuredContent && r.content?.[0]?.type === 'text',
      `tools/call sandbox_list: ${JSON.stringify(r).slice(0, 300)}`);
    check(JSON.stringify(JSON.parse(r.content[0].text)) === JSON.stringify(r.structuredContent),
      'text block carries the same JSON as structuredContent');
  } else {
    // No real tool registered in this build yet: the error path of tools/call.
    try {
      await client.callTool({ name: 'no_such_tool', arguments: {} });
      fail('tools/call of an unknown tool succeeded');
    } catch (e) {
      check(e instanceof ProtocolError && e.code === -32602, `tools/call unknown tool -> JSON-RPC -32602 (${e.message})`);
    }
  }

  const oldSession = transport.sessionId;
  await transport.terminateSession();
  check(transport.sessionId === undefined, 'DELETE ended the session');
  await client.close();

  // The old id is gone: raw POST gets 404 with a JSON-RPC error carrying the request id.
  const raw = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': oldSession },
    body: JSON.stringify({ jsonrpc: '2.0', id: 77, method: 'tools/list' }),
  });
  const body = await raw.json();
  check(raw.status === 404 && body.id === 77, `old session id -> HTTP ${raw.status} ${JSON.stringify(body)}`);

  // An SDK client resuming the old session hits 404 too (SdkHttpError), and recovers by re-initializing.
  // (A resumed client has no server capabilities, so it would answer listTools() itself: ping goes out.)
  const stale = new Client({ name: 'chat2sbx-e2e', version: '1.0.0' });
  await stale.connect(new StreamableHTTPClientTransport(url, { sessionId: oldSession }));
  let status;
  try {
    await stale.ping();
  } catch (e) {
    status = e instanceof SdkHttpError ? e.status : `${e}`;
  }
  check(status === 404, `SDK request with the deleted session id -> ${status}`);
  await stale.close();
  const again = new Client({ name: 'chat2sbx-e2e', version: '1.0.0' });
  const againTransport = new StreamableHTTPClientTransport(url);
  await again.connect(againTransport);
  check(againTransport.sessionId && againTransport.sessionId !== oldSession, `re-initialized with a new session ${againTransport.sessionId}`);
  const relisted = await again.listTools();
  check(relisted.tools.length === tools.length, 'tools/list works in the new session');
  await againTransport.terminateSession();
  await again.close();
  console.log('PASS: SDK client e2e');
} catch (e) {
  console.error(server.output());
  fail(errorText(e));
} finally {
  await server.stop();
}
