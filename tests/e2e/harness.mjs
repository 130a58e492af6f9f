// Starts the real `chat2sbx serve` in an isolated world (temp HOME and data root, free port,
// tunnel disabled, the fake sbx when the build has one) and stops it again.
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

// Servers still running when the script exits (a failed check exits at once, skipping `finally`):
// each gets SIGTERM so that it shuts down its sandboxes instead of outliving the test.
const running = new Set();
process.on('exit', () => {
  for (const child of running) child.kill('SIGTERM');
});

export function fail(message) {
  console.error(`FAIL: ${message}`);
  process.exit(1);
}

// An error with its causes: undici's "fetch failed" says why (e.g. the socket closed) only there.
export function errorText(err) {
  let text = `${err?.stack ?? err}`;
  for (let cause = err?.cause, depth = 0; cause && depth < 4; cause = cause.cause, depth++)
    text += `\ncaused by: ${cause?.stack ?? cause}${cause?.code ? ` (${cause.code})` : ''}`;
  return text;
}

export function check(condition, message) {
  if (!condition) fail(message);
  console.log(`ok: ${message}`);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

export async function startServer(extraEnv = {}) {
  const binary = process.env.CHAT2SBX_BINARY;
  if (!binary) fail('CHAT2SBX_BINARY is not set (run through ctest)');
  const root = mkdtempSync(path.join(os.tmpdir(), 'chat2sbx-e2e-'));
  const home = path.join(root, 'home');
  const sbxState = path.join(root, 'sbx-state');
  mkdirSync(home, { recursive: true });
  mkdirSync(sbxState, { recursive: true });
  const port = await freePort();
  const env = {
    ...process.env,
    HOME: home,
    CHAT2SBX_DATA_ROOT: path.join(home, '.chat2sbx'),
    CHAT2SBX_PORT: String(port),
    CHAT2SBX_ENABLE_TUNNEL: '0',
    FAKE_SBX_STATE: sbxState,
    ASAN_OPTIONS: 'detect_leaks=0',
    // sbx gets an explicit environment: the fake's settings reach it only through this list.
    CHAT2SBX_SBX_ENV: 'FAKE_SBX_*,ASAN_OPTIONS,UBSAN_OPTIONS,LSAN_OPTIONS',
    ...extraEnv,
  };
  delete env.DBUS_SESSION_BUS_ADDRESS;
  // The pinned template `chat2sbx setup` would have built, as the Qt test environments have it.
  if (process.env.CHAT2SBX_VERSION) env.FAKE_SBX_TEMPLATES = `chat2sbx-shell:${process.env.CHAT2SBX_VERSION}`;
  if (process.env.CHAT2SBX_FAKE_SBX) env.CHAT2SBX_SBX = process.env.CHAT2SBX_FAKE_SBX;
  let output = '';
  const child = spawn(binary, ['serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.on('data', (d) => { output += d; });
  child.stderr.on('data', (d) => { output += d; });
  let exited = false;
  running.add(child);
  child.on('exit', () => { exited = true; running.delete(child); });

  const url = `http://127.0.0.1:${port}/mcp`;
  const deadline = Date.now() + 30000;
  for (;;) {
    if (exited) fail(`chat2sbx serve exited during start-up:\n${output}`);
    try {
      const r = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (r.ok) break;
    } catch { /* not listening yet */ }
    if (Date.now() > deadline) fail(`chat2sbx serve did not become healthy within 30 s:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }

  return {
    url,
    port,
    env,   // for running `chat2sbx <command>` against the same data root
    output: () => output,
    async stop() {
      if (!exited) {
        child.kill('SIGTERM');
        const t = Date.now();
        while (!exited && Date.now() - t < 15000) await new Promise((r) => setTimeout(r, 50));
        if (!exited) child.kill('SIGKILL');
      }
      // The fake sbx's sandbox processes outlive serve for a moment and may still write into the
      // state: retry on ENOTEMPTY/EBUSY instead of failing the test in its clean-up.
      rmSync(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    },
  };
}
