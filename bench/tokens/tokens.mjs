// Token economy of chat2sbx's tool results (docs/TOOL_CARDS.md). Runs one fixed workflow against a real
// `chat2sbx serve` with the fake sbx (tests/e2e/harness.mjs starts it) once per client kind, and counts
// o200k_base tokens of what that client's model reads against the tokens of the raw payloads:
//   raw       = per result, its payload fields (output, content, diff) as plain text plus the rest of
//               structuredContent as compact JSON: the result said once, nothing escaped twice;
//   chatgpt   = a session with clientInfo "openai-mcp": content texts + JSON of structuredContent
//               (ChatGPT gives its model both, per the Apps SDK reference);
//   content   = a session as Claude or the Agents SDK: content texts only (what those models read);
//   both      = that same session counted as if its client read both parts.
// Prints one JSON object; `node tokens.mjs --table` also prints a per-call table on stderr.
// Needs CHAT2SBX_BINARY, CHAT2SBX_FAKE_SBX and CHAT2SBX_VERSION (bench/tokens/run.sh sets them).
import { Tiktoken } from 'js-tiktoken/lite';
import o200k from 'js-tiktoken/ranks/o200k_base';
import { startServer } from '../../tests/e2e/harness.mjs';

const enc = new Tiktoken(o200k);
const tokens = (s) => enc.encode(s).length;
const PAYLOAD_FIELDS = ['output', 'content', 'diff'];

class Session {
  constructor(url, clientName) {
    this.url = url;
    this.clientName = clientName;
    this.id = 0;
  }
  async post(message) {
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    if (this.session) headers['mcp-session-id'] = this.session;
    if (this.version) headers['mcp-protocol-version'] = this.version;
    const r = await fetch(this.url, { method: 'POST', headers, body: JSON.stringify(message) });
    if (!this.session) this.session = r.headers.get('mcp-session-id');
    const text = await r.text();
    if (!text) return null;
    const body = r.headers.get('content-type')?.startsWith('text/event-stream')
      ? text.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5)).join('')
      : text;
    return JSON.parse(body);
  }
  async initialize() {
    const r = await this.post({ jsonrpc: '2.0', id: ++this.id, method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: this.clientName, version: '1' } } });
    this.version = r.result.protocolVersion;
    await this.post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  }
  async call(name, args) {
    const r = await this.post({ jsonrpc: '2.0', id: ++this.id, method: 'tools/call', params: { name, arguments: args } });
    if (r.error) throw new Error(`${name}: ${JSON.stringify(r.error)}`);
    return r.result;
  }
}

// The fixed workflow; every tool result it produces is measured.
async function workflow(s) {
  const results = [];
  const call = async (name, args) => {
    const r = await s.call(name, args);
    if (r.isError) throw new Error(`${name} failed: ${r.content?.[0]?.text}`);
    results.push({ name, result: r });
    return r;
  };
  const created = await call('sandbox_create', {});
  const sandbox_id = created.structuredContent.sandbox_id;
  // A 20 KB source file (400 lines of 50 bytes), a 40 KB log and a 4 KB tail, committed as the base.
  await call('bash', { sandbox_id, command:
    'mkdir -p src && for i in $(seq 1 400); do printf \'def f%03d(x): return "%s" + str(x) # v1\\n\' $i abcdefghij; done > src/app.py'
    + ' && for i in $(seq 1 800); do printf \'[%04d] build step %d: compiled "unit_%d.o" ok\\t(0.%02ds)\\n\' $i $i $i $((i % 97)); done > build.log'
    + ' && head -c 4000 build.log > tail.log'
    + ' && git init -q && git add -A && git -c user.name=b -c user.email=b@b commit -qm base && wc -c src/app.py build.log' });
  await call('read', { sandbox_id, path: 'src/app.py' });
  await call('search', { sandbox_id, pattern: 'def f01', glob: '*.py' });
  await call('edit', { sandbox_id, path: 'src/app.py', old_string: 'def f007(x): return "abcdefghij" + str(x) # v1',
    new_string: 'def f007(x): return "ABCDEFGHIJ" + str(x) # v2' });
  await call('apply_patch', { sandbox_id, patch: [
    '*** Begin Patch', '*** Update File: src/app.py', '@@',
    '-def f100(x): return "abcdefghij" + str(x) # v1', '+def f100(x): return "patched" + str(x) # v2',
    '*** Add File: src/NOTES.md', '+# Notes', '+Patched f100.', '*** End Patch'].join('\n') });
  // 40 KB of output at once, then the rest of the command through bash_poll.
  const run = await call('bash', { sandbox_id, command: 'cat build.log; sleep 2; cat tail.log', yield_time_ms: 1000 });
  let polled = run.structuredContent;
  while (polled.status === 'running' || polled.has_more_output)
    polled = (await call('bash_poll', { sandbox_id, session_id: run.structuredContent.session_id, yield_time_ms: 5000 })).structuredContent;
  await call('show_changes', { sandbox_id });
  await call('sandbox_destroy', { sandbox_id });
  return results;
}

function count({ name, result }) {
  const sc = result.structuredContent ?? {};
  const texts = (result.content ?? []).filter((c) => c.type === 'text').map((c) => c.text);
  const rest = { ...sc };
  let raw = 0;
  for (const f of PAYLOAD_FIELDS) {
    if (typeof sc[f] === 'string' && sc[f].length > 0) {
      raw += tokens(sc[f]);
      delete rest[f];
    }
  }
  raw += tokens(JSON.stringify(rest));
  const content = texts.reduce((n, t) => n + tokens(t), 0);
  const structured = result.structuredContent ? tokens(JSON.stringify(result.structuredContent)) : 0;
  return { name, raw, content, structured };
}

const sum = (rows, k) => rows.reduce((n, r) => n + r[k], 0);
const ratio = (a, b) => Math.round((a / b) * 1000) / 1000;

const server = await startServer({ CHAT2SBX_WARM_SANDBOXES: '0' });
try {
  const chatgpt = new Session(server.url, 'openai-mcp');
  await chatgpt.initialize();
  const chatgptRows = (await workflow(chatgpt)).map(count);
  const other = new Session(server.url, 'claude-ai');
  await other.initialize();
  const otherRows = (await workflow(other)).map(count);

  const raw = sum(chatgptRows, 'raw');
  const rawOther = sum(otherRows, 'raw');
  const out = {
    bench: 'tokens',
    tokenizer: 'o200k_base (js-tiktoken)',
    calls: chatgptRows.length,
    raw_tokens: raw,
    chatgpt: { visible_tokens: sum(chatgptRows, 'content') + sum(chatgptRows, 'structured'),
               ratio: ratio(sum(chatgptRows, 'content') + sum(chatgptRows, 'structured'), raw) },
    content_only: { visible_tokens: sum(otherRows, 'content'), ratio: ratio(sum(otherRows, 'content'), rawOther) },
    structured_only: { visible_tokens: sum(otherRows, 'structured'), ratio: ratio(sum(otherRows, 'structured'), rawOther) },
    both_for_content_client: { visible_tokens: sum(otherRows, 'content') + sum(otherRows, 'structured'),
                               ratio: ratio(sum(otherRows, 'content') + sum(otherRows, 'structured'), rawOther) },
  };
  if (process.argv.includes('--table')) {
    console.error('call            raw   chatgpt(text+sc)  content-client(text)');
    chatgptRows.forEach((r, i) => {
      const o = otherRows[i] ?? { content: 0 };
      console.error(`${r.name.padEnd(15)} ${String(r.raw).padStart(5)}  ${String(r.content + r.structured).padStart(8)} (${r.content}+${r.structured})  ${String(o.content).padStart(8)}`);
    });
  }
  console.log(JSON.stringify(out));
} finally {
  await server.stop();
}
