import { readFileSync } from 'node:fs';
import { startCardHost } from './card_host.mjs';
import puppeteer from 'puppeteer-core';
const html = readFileSync('../../resources/widgets/tool-card.html', 'utf8');
const host = await startCardHost(html);
const browser = await puppeteer.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu'] });
const page = await browser.newPage();
page.on('console', (m) => { if (m.type() !== 'debug') console.log('console', m.type(), m.text()); });
page.on('pageerror', (e) => console.log('pageerror', e.message));
await page.goto(`${host.origin}/host.html`);
await page.waitForFunction('window.hostReady === true', { timeout: 20000 });
let diff = ''; const files = [];
for (let i = 1; i <= 300; i++) { diff += `diff --git a/many/f${i}.txt b/many/f${i}.txt\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n+++ b/many/f${i}.txt\n@@ -0,0 +1,2 @@\n+file ${i}\n+second line\n`; files.push({ path: `many/f${i}.txt`, status: 'added', added: 2, removed: 0, where: ['staged'] }); }
diff += 'diff --git a/README.md b/README.md\nindex 1..2 100644\n--- a/README.md\n+++ b/README.md\n@@ -1,3 +1,3 @@\n context\n--- removed line that looks like a header\n+added\n context2\n';
files.push({ path: 'README.md', status: 'modified', added: 1, removed: 1, where: ['committed'] });
const sc = { sandbox_id: 'sbx_1', workspace_path: '/home/agent/workspace', base_commit: 'abcdef1234567890', head_commit: '1234567890abcdef', branch: 'main', commits: [{ id: 'abcdef123456', subject: 'Add hello' }], files, files_changed: files.length, lines_added: 601, lines_removed: 1, diff };
for (const theme of ['light', 'dark']) {
const info = await page.evaluate((a) => window.mountCard(a), { tool: 'show_changes', input: {}, theme, result: { content: [], structuredContent: sc, _meta: { 'chat2sbx/tool': 'show_changes' } } });
console.log(info.ms, info.sizes.at(-1));
await (await page.$('iframe')).screenshot({ path: `/tmp/widget-diff-${theme}.png` });
}
const f = page.frames().find((f) => f !== page.mainFrame());
console.log(await f.$$eval('details.file', (l) => l.length), await f.$eval('details[data-path="README.md"]', (d) => { d.open = true; return new Promise(r => setTimeout(() => r(d.textContent), 50)); }));
await browser.close(); await host.close();
