// The tool card and the result shapes (docs/TOOL_CARDS.md) through the official MCP TypeScript SDK
// v2 client against the real server with the fake sbx: resources/read of the card, the tools' _meta,
// and what a content-only client and ChatGPT ("openai-mcp") get from a bash call. The SDK client
// validates every structuredContent against the tool's outputSchema.
import { Client, ResourceNotFoundError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { check, errorText, fail, startServer } from './harness.mjs';

const CARD = 'ui://widget/chat2sbx-tool-card.html';
const CARD_TOOLS = ['bash', 'bash_poll', 'bash_write', 'bash_stop', 'show_changes', 'edit', 'apply_patch', 'write',
  'sandbox_create', 'sandbox_get', 'sandbox_list', 'export_changes', 'view_image', 'import_file', 'export_file'];

async function connect(url, name) {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

async function bashOutput(client, sandboxId) {
  // 3,000 lines with quotes and tabs: JSON would escape them, the raw text does not.
  const r = await client.callTool({ name: 'bash', arguments: { sandbox_id: sandboxId,
    command: 'for i in $(seq 1 3000); do printf \'line %d "q"\\tend\\n\' $i; done', yield_time_ms: 30000 } });
  check(r.isError === false && r.structuredContent?.status === 'exited', `bash ran (${JSON.stringify(r).slice(0, 200)})`);
  return r;
}

const server = await startServer({ CHAT2SBX_WARM_SANDBOXES: '0' });
try {
  const client = await connect(server.url, 'chat2sbx-e2e-cards');
  check(client.getServerCapabilities()?.resources !== undefined, 'initialize advertises the resources capability');

  const { resources } = await client.listResources();
  const listed = resources.find((r) => r.uri === CARD);
  check(listed?.mimeType === 'text/html;profile=mcp-app', `resources/list has the card (${JSON.stringify(resources)})`);
  const read = await client.readResource({ uri: CARD });
  const page = read.contents?.[0];
  check(page?.uri === CARD && page.mimeType === 'text/html;profile=mcp-app', 'resources/read returns the card');
  check(typeof page.text === 'string' && page.text.startsWith('<!DOCTYPE html>') && page.text.length > 500,
    `the card is an HTML page (${page.text?.length} characters)`);
  const csp = page._meta?.ui?.csp;
  check(csp && csp.connectDomains.length === 0 && csp.resourceDomains.length === 0, 'its CSP allows no network');
  check(page._meta?.['openai/widgetCSP']?.connect_domains?.length === 0, "ChatGPT's widgetCSP allows no network");
  const templates = await client.listResourceTemplates();
  check(Array.isArray(templates.resourceTemplates) && templates.resourceTemplates.length === 0, 'no resource templates');
  try {
    await client.readResource({ uri: 'ui://widget/nope.html' });
    fail('resources/read of an unknown uri succeeded');
  } catch (e) {
    // The server's legacy -32002 and the modern -32602 both arrive as the SDK's ResourceNotFoundError.
    check(e instanceof ResourceNotFoundError && e.data?.uri === 'ui://widget/nope.html',
      `unknown uri -> resource not found with data.uri (${e.code} ${e.message} ${JSON.stringify(e.data)})`);
  }

  const { tools } = await client.listTools();
  for (const t of tools) {
    const meta = t._meta ?? {};
    for (const key of ['openai/toolInvocation/invoking', 'openai/toolInvocation/invoked'])
      check(typeof meta[key] === 'string' && meta[key].length > 0 && meta[key].length <= 64, `${t.name} has ${key} (${meta[key]})`);
    if (CARD_TOOLS.includes(t.name))
      check(meta.ui?.resourceUri === CARD && meta['openai/outputTemplate'] === CARD, `${t.name} points at the card in both spellings`);
  }

  // A content-only client: the text starts with the small fields and carries the output raw, once.
  const created = await client.callTool({ name: 'sandbox_create', arguments: {} });
  check(created.isError === false && created._meta?.['chat2sbx/tool'] === 'sandbox_create' && created._meta?.['chat2sbx/view'] === 'sandbox',
    `sandbox_create names its tool and its card view in _meta: ${JSON.stringify(created._meta)}`);
  const sandboxId = created.structuredContent.sandbox_id;
  const full = await bashOutput(client, sandboxId);
  const text = full.content[0].text;
  const [head] = text.split('\n', 1);
  const small = JSON.parse(head);
  check(small.status === 'exited' && small.exit_code === 0 && small.session_id === full.structuredContent.session_id,
    `the text's first line holds status, exit code and session id: ${head}`);
  check(text === `${head}\n--- output ---\n${full.structuredContent.output}`, 'the output follows raw, exactly once');
  check(!('output' in small), 'the JSON line does not repeat the output');

  // ChatGPT: structuredContent holds everything, the text is a short summary.
  const chatgpt = await connect(server.url, 'openai-mcp');
  const compact = await bashOutput(chatgpt, sandboxId);
  const summary = compact.content[0].text;
  check(summary.length < 400 && !summary.includes('line 1 '), `ChatGPT's text is a summary: ${summary}`);
  check(/"exit_code":0/.test(summary) && summary.includes(compact.structuredContent.session_id), 'it still says exit code and session id');
  check(compact.structuredContent.output === full.structuredContent.output, 'structuredContent is the same for both clients');

  await client.callTool({ name: 'sandbox_destroy', arguments: { sandbox_id: sandboxId } });
  await chatgpt.close();
  await client.close();
} catch (err) {
  fail(`${errorText(err)}\n--- server output ---\n${server.output().slice(-4000)}`);
} finally {
  await server.stop();
}
console.log('PASS');
