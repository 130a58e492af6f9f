// The tool card's diff parsers: git's unified diff (show_changes, edit, write) and apply_patch's
// own format, and the limit on the lines drawn per file.
import assert from 'node:assert/strict';
import test from 'node:test';
import { loadParsers, plain } from './card_parsers.mjs';

const card = loadParsers();
// What the view draws of a parsed file (the parser's own hunk counters left out).
const drawn = (files) => plain(files.map((f) => ({
  path: f.path, status: f.status, added: f.added, removed: f.removed, meta: f.meta,
  hunks: f.hunks.map((h) => ({ header: h.header, lines: h.lines })),
})));
const file = (path, status, added, removed, meta, hunks) => ({ path, status, added, removed, meta, hunks });
const lines = (...l) => `${l.join('\n')}\n`;

const unifiedRows = [
  ['a modified file', lines(
    'diff --git a/src/a.txt b/src/a.txt', 'index 1111111..2222222 100644', '--- a/src/a.txt', '+++ b/src/a.txt',
    '@@ -1,3 +1,3 @@', ' one', '-two', '+TWO', ' three'),
  [file('src/a.txt', '', 1, 1, ['index 1111111..2222222 100644'],
    [{ header: '@@ -1,3 +1,3 @@', lines: [' one', '-two', '+TWO', ' three'] }])]],
  ['a new file', lines(
    'diff --git a/new.txt b/new.txt', 'new file mode 100644', 'index 0000000..3333333', '--- /dev/null', '+++ b/new.txt',
    '@@ -0,0 +1,2 @@', '+a', '+b'),
  [file('new.txt', 'added', 2, 0, ['new file mode 100644', 'index 0000000..3333333'],
    [{ header: '@@ -0,0 +1,2 @@', lines: ['+a', '+b'] }])]],
  ['a deleted file', lines(
    'diff --git a/old.txt b/old.txt', 'deleted file mode 100644', '--- a/old.txt', '+++ /dev/null', '@@ -1 +0,0 @@', '-gone'),
  [file('old.txt', 'deleted', 0, 1, ['deleted file mode 100644'], [{ header: '@@ -1 +0,0 @@', lines: ['-gone'] }])]],
  ['a pure rename', lines(
    'diff --git a/old name.txt b/new name.txt', 'similarity index 100%', 'rename from old name.txt', 'rename to new name.txt'),
  [file('new name.txt', 'renamed', 0, 0, ['similarity index 100%', 'rename from old name.txt', 'rename to new name.txt'], [])]],
  ['a rename with changes', lines(
    'diff --git a/a.c b/b.c', 'similarity index 90%', 'rename from a.c', 'rename to b.c', '--- a/a.c', '+++ b/b.c',
    '@@ -1 +1 @@', '-x', '+y'),
  [file('b.c', 'renamed', 1, 1, ['similarity index 90%', 'rename from a.c', 'rename to b.c'],
    [{ header: '@@ -1 +1 @@', lines: ['-x', '+y'] }])]],
  ['a binary file', lines(
    'diff --git a/pic.png b/pic.png', 'index 4444444..5555555 100644', 'Binary files a/pic.png and b/pic.png differ'),
  [file('pic.png', '', 0, 0, ['index 4444444..5555555 100644', 'Binary files a/pic.png and b/pic.png differ'], [])]],
  ['no newline at the end of a file', lines(
    'diff --git a/n.txt b/n.txt', '--- a/n.txt', '+++ b/n.txt', '@@ -1 +1 @@', '-old', '\\ No newline at end of file', '+new',
    '\\ No newline at end of file'),
  [file('n.txt', '', 1, 1, [],
    [{ header: '@@ -1 +1 @@', lines: ['-old', '\\ No newline at end of file', '+new', '\\ No newline at end of file'] }])]],
  ['two files, two hunks', lines(
    'diff --git a/a b/a', '--- a/a', '+++ b/a', '@@ -1,2 +1,2 @@', '-1', '+one', ' 2', '@@ -10 +10,2 @@', ' 10', '+11',
    'diff --git a/b b/b', '--- a/b', '+++ b/b', '@@ -1 +1 @@', '-x', '+y'),
  [file('a', '', 2, 1, [], [{ header: '@@ -1,2 +1,2 @@', lines: ['-1', '+one', ' 2'] }, { header: '@@ -10 +10,2 @@', lines: [' 10', '+11'] }]),
    file('b', '', 1, 1, [], [{ header: '@@ -1 +1 @@', lines: ['-x', '+y'] }])]],
  ['removed and added lines that look like file headers', lines(
    'diff --git a/h.txt b/h.txt', '--- a/h.txt', '+++ b/h.txt', '@@ -1,2 +1,2 @@', '--- x', '+++ y', ' keep'),
  [file('h.txt', '', 1, 1, [], [{ header: '@@ -1,2 +1,2 @@', lines: ['--- x', '+++ y', ' keep'] }])]],
  ['an empty context line inside a hunk', lines(
    'diff --git a/e b/e', '--- a/e', '+++ b/e', '@@ -1,3 +1,3 @@', ' a', '', '-b', '+c'),
  [file('e', '', 1, 1, [], [{ header: '@@ -1,3 +1,3 @@', lines: [' a', '', '-b', '+c'] }])]],
  ['a plain unified diff without a git header', lines('--- a/p.txt\t2024-01-01', '+++ b/p.txt\t2024-01-02', '@@ -1 +1 @@', '-a', '+b'),
  [file('p.txt', '', 1, 1, [], [{ header: '@@ -1 +1 @@', lines: ['-a', '+b'] }])]],
  ['a hunk with no file header', lines('@@ -1 +1 @@', '-a', '+b'),
  [file('(diff)', '', 1, 1, [], [{ header: '@@ -1 +1 @@', lines: ['-a', '+b'] }])]],
  ['an empty diff', '', []],
];
for (const [name, diff, expected] of unifiedRows) {
  test(`unified diff: ${name}`, () => assert.deepEqual(drawn(card.parseUnified(diff)), expected));
}

const patchRows = [
  ['update, add and delete', lines('*** Begin Patch', '*** Update File: src/a.txt', '@@ def f', ' keep', '-old', '+new',
    '*** Add File: b.txt', '+hello', '*** Delete File: c.txt', '*** End Patch'),
  [file('src/a.txt', 'modified', 1, 1, [], [{ header: '@@ def f', lines: [' keep', '-old', '+new'] }]),
    file('b.txt', 'added', 1, 0, [], [{ header: '@@', lines: ['+hello'] }]),
    file('c.txt', 'deleted', 0, 0, [], [])]],
  ['a move', lines('*** Begin Patch', '*** Update File: a.txt', '*** Move to: b.txt', '@@', '-x', '+y', '*** End of File', '*** End Patch'),
  [file('a.txt', 'modified', 1, 1, ['Move to: b.txt'], [{ header: '@@', lines: ['-x', '+y'] }])]],
  ['lines before any file are ignored', lines('junk', '+not counted'), []],
];
for (const [name, patch, expected] of patchRows) {
  test(`apply_patch format: ${name}`, () => assert.deepEqual(drawn(card.parsePatch(patch)), expected));
}

const hunk = (n, tag) => ({ header: `@@ ${tag} @@`, lines: Array.from({ length: n }, (_, i) => `+${tag}${i}`) });
const limitRows = [
  // [name, hunk sizes, max, lines drawn per hunk, cut]
  ['under the limit', [2, 3], 10, [2, 3], false],
  ['exactly the limit', [4, 6], 10, [4, 6], false],
  ['cut inside a hunk', [4, 8], 10, [4, 6], true],
  ['cut at a hunk boundary', [5, 5, 1], 10, [5, 5], true],
  ['a first hunk over the limit', [20, 1], 10, [10], true],
  ['no hunks', [], 10, [], false],
];
for (const [name, sizes, max, shown, cut] of limitRows) {
  test(`line limit per file: ${name}`, () => {
    const hunks = sizes.map((n, i) => hunk(n, `h${i}`));
    const limited = plain(card.limitHunks(hunks, max));
    assert.deepEqual(limited.hunks.map((h) => h.lines.length), shown);
    assert.deepEqual(limited.hunks.map((h) => h.header), hunks.slice(0, shown.length).map((h) => h.header));
    assert.equal(limited.cut, cut);
  });
}

test('a long diff parses in one pass', () => {
  const body = Array.from({ length: 20000 }, (_, i) => `+line ${i}`);
  const started = Date.now();
  const [f] = card.parseUnified(lines('diff --git a/big b/big', '--- a/big', '+++ b/big', '@@ -0,0 +1,20000 @@', ...body));
  assert.equal(f.added, 20000);
  assert.equal(f.hunks[0].lines.length, 20000);
  assert.ok(Date.now() - started < 2000);
});
