// The tool card in a real browser (Debian's chromium through puppeteer-core), hosted with the
// official MCP Apps host bridge (card_host.mjs), fed with results recorded live from `chat2sbx serve`
// on the fake sbx (card_results.mjs). Each card must draw the view its result names in
// _meta["chat2sbx/view"] (or, unnamed, its shape implies) with the expected elements, with
// no console error, no request from the card (request interception) and no CSP violation; light and
// dark follow the host's theme; a 60 KB output and a 300-file diff draw fast. Screenshots go to
// $CHAT2SBX_SCREENSHOT_DIR. Exits 77 (ctest: skipped) only when chromium is not installed.
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startCardHost } from './card_host.mjs';
import { makeRepo, recordResults } from './card_results.mjs';
import { check, errorText, fail, startServer } from './harness.mjs';

const chromium = process.env.CHAT2SBX_CHROMIUM || '/usr/bin/chromium';
if (!existsSync(chromium)) {
  console.log(`SKIP: ${chromium} is not installed (apt-get install chromium; installers/deps.sh --test installs it)`);
  process.exit(77);
}
if (!process.env.CHAT2SBX_FAKE_SBX) fail('CHAT2SBX_FAKE_SBX is not set (the fake sbx is not built)');
const { default: puppeteer } = await import('puppeteer-core');
const shots = process.env.CHAT2SBX_SCREENSHOT_DIR || path.join(os.tmpdir(), 'chat2sbx-card-screenshots');
mkdirSync(shots, { recursive: true });

const roots = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'chat2sbx-e2e-card-')));
const server = await startServer({ CHAT2SBX_ALLOWED_HOST_ROOTS: roots, CHAT2SBX_WARM_SANDBOXES: '0', CHAT2SBX_CLOUD_SANDBOXES: '1' });
let browser = null;
let host = null;
let profile = null;
try {
  const { cardHtml, cases } = await recordResults(server, makeRepo(roots));
  host = await startCardHost(cardHtml);
  profile = mkdtempSync(path.join(os.tmpdir(), 'chat2sbx-chromium-'));
  browser = await puppeteer.launch({
    executablePath: chromium, headless: true, userDataDir: profile,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update',
      '--disable-default-apps', '--disable-sync', '--disable-extensions', '--force-device-scale-factor=1'],
  });
  const page = await browser.newPage();
  await page.setViewport({ width: 800, height: 600 });
  const problems = [];
  const cardRequests = [];
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warn') problems.push(`console ${m.type()}: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  await page.setRequestInterception(true);
  page.on('request', (r) => {
    const url = r.url();
    const fromCard = r.frame() && r.frame() !== page.mainFrame();
    const own = url === `${host.origin}/card.html` && r.isNavigationRequest();
    const hostFile = !fromCard && (url === `${host.origin}/host.html` || url.startsWith(`${host.origin}/node_modules/`));
    if (own || hostFile || url.startsWith('data:')) return r.continue();   // data: URLs never reach the network
    cardRequests.push(url);
    return r.abort();
  });
  await page.goto(`${host.origin}/host.html`);
  await page.waitForFunction('window.hostReady === true', { timeout: 20000 });

  // The view each recorded result names (ToolCallRunner's _meta["chat2sbx/view"]). A result the
  // server did not name (a server from before the name) is named here as the server names it.
  const VIEW = { bash_ansi: 'terminal', bash_markup: 'terminal', bash_running: 'terminal', bash_poll: 'terminal',
    bash_write: 'terminal', bash_stop: 'terminal', bash_60k: 'terminal', edit: 'diff', write: 'diff', apply_patch: 'diff',
    show_changes: 'diff', show_changes_300: 'diff', sandbox_create: 'sandbox', sandbox_create_cloud: 'sandbox', sandbox_get: 'sandbox',
    sandbox_list: 'sandbox-list', export_changes: 'export', view_image: 'image', export_file_image: 'file',
    export_file_text: 'file', sandbox_checkpoint: 'checkpoint', sandbox_checkpoints: 'checkpoint', sandbox_restore: 'checkpoint' };
  const named = (key, result) => {
    const view = VIEW[key];
    const meta = result._meta ?? {};
    if (!view || result.isError) return result;
    if ('chat2sbx/view' in meta) {
      check(meta['chat2sbx/view'] === view, `${key}: the server names the ${view} view (${meta['chat2sbx/view']})`);
      return result;
    }
    return { ...result, _meta: { ...meta, 'chat2sbx/view': view } };
  };
  const cardFrame = () => page.frames().find((f) => f !== page.mainFrame());
  const mount = async (key, theme = 'light', as = {}) => {
    const tool = as.tool ?? cases[key].tool;
    const input = cases[key].input;
    const result = as.result ?? named(key, cases[key].result);
    const before = problems.length;
    const info = await page.evaluate((a) => window.mountCard(a), { tool, input, result, theme });
    const frame = cardFrame();
    await frame.waitForSelector('#card:not([data-view="waiting"])', { timeout: 10000 });
    const view = await frame.$eval('#card', (c) => c.getAttribute('data-view'));
    // ui/notifications/size-changed follows the drawn result: the host ends up with the card's real height.
    const height = await frame.evaluate(() => Math.ceil(document.documentElement.getBoundingClientRect().height));
    await page.waitForFunction((h) => window.lastSize()?.height === h, { timeout: 5000 }, height)
      .catch(() => fail(`${key}: the last size-changed (${JSON.stringify(info.sizes.at(-1))}) is not the card's height ${height}`));
    check(height > 40, `${key}: the card reported its size (${height} px)`);
    check(info.appVersion?.name === 'chat2sbx-tool-card', `${key}: ui/initialize named the card`);
    check(problems.length === before, `${key}: no console error (${problems.slice(before).join(' | ')})`);
    return { frame, view, ms: info.ms, result, input };
  };
  const text = (frame, sel) => frame.$eval(sel, (e) => e.textContent);
  const count = (frame, sel) => frame.$$eval(sel, (l) => l.length);
  const shoot = async (name) => {
    const handle = await page.$('iframe');
    await handle.screenshot({ path: path.join(shots, `${name}.png`) });
  };
  const headerText = (frame) => text(frame, 'header');

  // Terminal: ANSI colours drawn, every other escape dropped, carriage returns fold.
  let c = await mount('bash_ansi');
  check(c.view === 'terminal', 'bash draws the terminal view');
  check(await text(c.frame, '.cmd') === c.input.command, 'the terminal shows the command');
  const out = await text(c.frame, '[data-role=output]');
  check(out === 'PASS build red x\ndone\ttab\nbar 100%\n', `the output is drawn without escape bytes: ${JSON.stringify(out)}`);
  check(await c.frame.$eval('.term .fg2', (e) => e.textContent) === 'PASS' && await count(c.frame, '.term .ansi-b') === 1,
    'SGR green bold is drawn as colour');
  check(/exited/.test(await headerText(c.frame)) && /exit 0/.test(await headerText(c.frame)), 'status and exit code in the header');
  check(!/\x1b/.test(await c.frame.$eval('body', (b) => b.innerHTML)), 'no raw escape byte anywhere in the card');
  await shoot('bash-light');
  c = await mount('bash_ansi', 'dark');
  const bg = await c.frame.$eval('body', (b) => getComputedStyle(b).backgroundColor);
  check(bg === 'rgb(13, 17, 23)', `dark theme from the host context (${bg})`);
  await shoot('bash-dark');
  await page.evaluate(() => window.setTheme('light'));
  await c.frame.waitForFunction(() => getComputedStyle(document.body).backgroundColor === 'rgb(255, 255, 255)', { timeout: 5000 });
  check(true, 'ui/notifications/host-context-changed switches the theme to light');

  // Untrusted text stays text.
  c = await mount('bash_markup');
  check(await count(c.frame, '.term img, .term script') === 0 && (await text(c.frame, '[data-role=output]')).includes('<img src=/pwned'),
    'markup in the output is shown as text, never parsed');
  check(/exit 3/.test(await headerText(c.frame)) && await count(c.frame, '.pill.bad') === 1, 'a failed exit code is marked');

  c = await mount('bash_running');
  check(/running/.test(await headerText(c.frame)) && /bash_poll/.test(await text(c.frame, '.hint')), 'a running command shows the poll hint');
  c = await mount('bash_poll');
  check(c.view === 'terminal' && (await text(c.frame, '[data-role=output]')).includes('end'), 'bash_poll draws the rest of the output');
  c = await mount('bash_write');
  check(c.view === 'terminal' && (await text(c.frame, '[data-role=output]')).includes('got yes'), 'bash_write draws its output');
  c = await mount('bash_stop');
  check(c.view === 'terminal' && /exited/.test(await headerText(c.frame)), 'bash_stop draws the final status');

  c = await mount('bash_60k');
  const big = c.result.structuredContent;
  const shown = await text(c.frame, '[data-role=output]');
  const expected = big.output.replace(/\x1b\[[0-9;]*m/g, '');
  check(big.output.length > 55000 && shown === expected, `60 KB output drawn whole (${big.output.length} characters in ${Math.round(c.ms)} ms)`);
  check(c.ms < 3000, `the 60 KB card draws in under 3 s (${Math.round(c.ms)} ms)`);
  if (big.has_more_output) check(/bash_poll/.test(await text(c.frame, '.hint')), 'more output: the hint says bash_poll');
  await shoot('bash-60k');

  // Diffs.
  c = await mount('edit');
  check(c.view === 'diff' && await text(c.frame, 'details.file .path') === 'src/hello.txt', 'edit draws the diff view with the path');
  check(await c.frame.$$eval('.ln.a', (l) => l.map((e) => e.textContent).join('|')) === '+there'
    && await c.frame.$$eval('.ln.d', (l) => l.map((e) => e.textContent).join('|')) === '-world', 'edit: the +/- lines');
  check(/\+1/.test(await headerText(c.frame)) && /\u22121/.test(await headerText(c.frame)), 'edit: +1 −1 counted');
  c = await mount('write');
  check(c.view === 'diff' && await count(c.frame, 'details.file') === 1 && /created/.test(await headerText(c.frame)), 'write draws the created file');
  c = await mount('apply_patch');
  const patched = await c.frame.$$eval('details.file .path', (l) => l.map((e) => e.textContent).join(','));
  const patchFiles = c.result.structuredContent.files.map((f) => f.path);
  check(c.view === 'diff' && patchFiles.length === 2 && patched === patchFiles.join(','), `apply_patch lists both files (${patched})`);
  check(await c.frame.$$eval('.ln.a', (l) => l.map((e) => e.textContent).join('|')) === '+patched|+new', 'apply_patch shows the patch lines');
  c = await mount('show_changes');
  const paths = await c.frame.$$eval('details.file .path', (l) => l.map((e) => e.textContent));
  check(c.view === 'diff' && paths.includes('src/hello.txt') && paths.includes('NOTES.md'), `show_changes lists the files (${paths})`);
  check((await c.frame.$eval('table', (t) => t.textContent)).includes('Add hello'), 'show_changes shows the commit');
  await shoot('diff-light');
  await c.frame.$eval('details.hunk > summary', (s) => s.click());
  check(await c.frame.$eval('details.hunk', (d) => d.open) === false, 'a hunk collapses');

  c = await mount('show_changes_300');
  const many = c.result.structuredContent;
  const drawn = await count(c.frame, 'details.file');
  check(many.files.length >= 300 && drawn === many.files.length, `300-file diff: every file listed (${drawn}) in ${Math.round(c.ms)} ms`);
  check(c.ms < 3000, `the 300-file card draws in under 3 s (${Math.round(c.ms)} ms)`);
  const closed = await c.frame.$('details.file:not([open])');
  await closed.evaluate((d) => d.querySelector('summary').click());
  check(await closed.evaluate((d) => d.querySelectorAll('.ln').length > 0 || d.textContent.includes('no diff shown')), 'a closed file draws its hunks when opened');
  await shoot('diff-300-files');

  // Sandboxes, export, image.
  c = await mount('sandbox_create');
  check(c.view === 'sandbox' && (await text(c.frame, '[data-role=sandbox]')).includes(c.result.structuredContent.sandbox_id),
    'sandbox_create draws the sandbox card');
  check((await text(c.frame, '[data-role=sandbox]')).includes('clone'), 'the sandbox card says the workspace mode');
  c = await mount('sandbox_create_cloud');
  const cloudText = await text(c.frame, '[data-role=sandbox]');
  check(c.view === 'sandbox' && cloudText.includes("Docker's cloud (micro)") && cloudText.includes('expires')
    && cloudText.includes('at its end'), `a cloud sandbox's card says where it runs, when and how it ends (${cloudText.slice(0, 200)})`);
  await shoot('sandbox-cloud');
  c = await mount('sandbox_get');
  const ports = c.result.structuredContent.ports ?? [];
  check(c.view === 'sandbox' && await count(c.frame, '[data-role=sandbox] a[href^="http"]') === ports.filter((p) => /^https?:/.test(p.url)).length,
    `sandbox_get: ports as links (${ports.length} ports)`);
  await shoot('sandbox-light');
  c = await mount('sandbox_list', 'dark');
  check(c.view === 'sandbox-list' && await count(c.frame, '.list-item') === c.result.structuredContent.sandboxes.length, 'sandbox_list lists every sandbox');
  await shoot('sandbox-list-dark');
  c = await mount('export_changes');
  check(c.view === 'export' && await text(c.frame, '[data-role=command]') === c.result.structuredContent.command
    && (await text(c.frame, 'table')).includes(c.result.structuredContent.branch), 'export_changes shows the branch and the exact command');
  c = await mount('view_image');
  await c.frame.waitForFunction(() => document.querySelector('img.shot')?.complete, { timeout: 5000 });
  check(c.view === 'image' && await c.frame.$eval('img.shot', (i) => i.naturalWidth === 2 && i.naturalHeight === 1), 'view_image draws the image');
  // export_file: the file's name, size and host path, and the server's preview (its _meta, never the model's text).
  c = await mount('export_file_image');
  await c.frame.waitForFunction(() => document.querySelector('img[data-role=preview]')?.complete, { timeout: 5000 });
  const exported = c.result.structuredContent;
  check(c.view === 'file' && (await text(c.frame, '[data-role=file]')).includes(exported.host_path)
    && await c.frame.$eval('img[data-role=preview]', (i) => i.naturalWidth === 2 && i.naturalHeight === 1),
    `export_file of an image shows where it landed and the image (${exported.host_path})`);
  check(!c.result.content.some((b) => b.type === 'image') && !JSON.stringify(exported).includes('base64'),
    'the preview is not in what the model reads');
  await shoot('export-file-image');
  c = await mount('export_file_text');
  check(c.view === 'file' && await text(c.frame, '[data-role=preview]') === 'hello\npatched\n'
    && /B\b/.test(await headerText(c.frame)), 'export_file of a text file shows its start and its size');
  await shoot('export-file-text');

  // Checkpoints: what was saved and what a checkpoint does not keep; the list; a restore and its undo.
  c = await mount('sandbox_checkpoint');
  check(c.view === 'checkpoint' && (await text(c.frame, '[data-role=checkpoint]')).includes('before the upgrade')
    && (await text(c.frame, '[data-role=not-kept]')).includes('Docker'), 'sandbox_checkpoint shows the checkpoint and what it does not keep');
  await shoot('checkpoint');
  c = await mount('sandbox_checkpoints');
  check(c.view === 'checkpoint' && await count(c.frame, '.list-item') === c.result.structuredContent.checkpoints.length,
    'sandbox_checkpoints lists every checkpoint');
  c = await mount('sandbox_restore');
  check(c.view === 'checkpoint' && (await text(c.frame, '[data-role=checkpoint]')).includes(c.result.structuredContent.undo_checkpoint_id),
    'sandbox_restore shows the checkpoint that undoes it');
  await shoot('restore');

  c = await mount('error');
  check(c.view === 'fallback' && /no such file/.test(await text(c.frame, '[data-role=error]')), 'an isError result shows its message');
  c = await mount('no_card');
  check(c.view === 'fallback' && (await text(c.frame, '[data-role=text]')).length > 0, 'a tool without a view shows its text');

  // The view comes from the result, never from a list of tool names in the card.
  const bashResult = cases.bash_ansi.result;
  c = await mount('bash_ansi', 'light', { tool: 'renamed_tool', result: { ...bashResult,
    _meta: { 'chat2sbx/view': 'terminal', 'chat2sbx/tool': 'renamed_tool' } } });
  check(c.view === 'terminal' && /renamed_tool/.test(await headerText(c.frame)), 'a tool the card never heard of draws the view its result names');
  c = await mount('bash_ansi', 'light', { tool: 'renamed_tool', result: { ...bashResult, _meta: undefined } });
  check(c.view === 'terminal' && await text(c.frame, '[data-role=output]') === 'PASS build red x\ndone\ttab\nbar 100%\n',
    'an unnamed result draws the view of its shape');
  c = await mount('sandbox_get', 'light', { result: { ...cases.sandbox_get.result, _meta: { 'chat2sbx/view': 'spreadsheet' } } });
  check(c.view === 'sandbox', 'a view name the card does not know falls back to the shape');

  // ChatGPT's legacy globals alone (no MCP Apps parent): window.openai with toolOutput, toolResponseMetadata, theme.
  const legacy = await browser.newPage();
  legacy.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warn') problems.push(`legacy console ${m.type()}: ${m.text()}`); });
  legacy.on('pageerror', (e) => problems.push(`legacy page error: ${e.message}`));
  legacy.on('request', (r) => { if (r.url() !== `${host.origin}/card.html` && !r.url().startsWith('data:')) cardRequests.push(r.url()); });
  const { input: legacyInput, result: legacyResult } = cases.bash_ansi;
  await legacy.evaluateOnNewDocument((g) => { window.openai = g; }, { theme: 'dark', toolInput: legacyInput,
    toolOutput: legacyResult.structuredContent, toolResponseMetadata: named('bash_ansi', legacyResult)._meta ?? {} });
  await legacy.goto(`${host.origin}/card.html`);
  await legacy.waitForSelector('#card[data-view="terminal"]', { timeout: 10000 });
  check(await legacy.$eval('[data-role=output]', (e) => e.textContent) === 'PASS build red x\ndone\ttab\nbar 100%\n'
    && await legacy.$eval('body', (b) => getComputedStyle(b).backgroundColor) === 'rgb(13, 17, 23)',
    'window.openai alone: the card draws toolOutput in the theme it names');
  await legacy.close();

  check(cardRequests.length === 0, `no network request from the card (${cardRequests.join(', ')})`);
  check(problems.length === 0, `no console error or warning overall (${problems.join(' | ')})`);
  console.log(`screenshots: ${shots}`);
} catch (err) {
  fail(`${errorText(err)}\n--- server output ---\n${server.output().slice(-4000)}`);
} finally {
  if (browser) await browser.close();
  // Only once chromium has exited: it writes to its profile until then (removing it earlier failed under load).
  if (profile) rmSync(profile, { recursive: true, force: true, maxRetries: 5 });
  if (host) await host.close();
  await server.stop();
  rmSync(roots, { recursive: true, force: true });
}
console.log('PASS');
