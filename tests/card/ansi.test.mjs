// The tool card's terminal text: SGR colours and attributes become classes, every other escape and
// control byte is dropped, carriage returns fold a line, long output is clipped before parsing.
import assert from 'node:assert/strict';
import test from 'node:test';
import { loadParsers } from './card_parsers.mjs';

const card = loadParsers();
const ESC = '\x1b';
const seg = (text, cls = '') => ({ text, cls });
// What is drawn: neighbouring runs of the same classes read as one (a dropped escape splits a run in two).
const drawn = (text) => card.ansiSegments(text).reduce((out, s) => {
  const last = out[out.length - 1];
  if (last && last.cls === s.cls) last.text += s.text; else out.push(seg(s.text, s.cls));
  return out;
}, []);

const rows = [
  // colours
  ['plain text', 'hello\tworld\n', [seg('hello\tworld\n')]],
  ['bold green, reset', `${ESC}[1;32mPASS${ESC}[0m build`, [seg('PASS', 'fg2 ansi-b'), seg(' build')]],
  ['the 8 colours', `${ESC}[30ma${ESC}[37mb`, [seg('a', 'fg0'), seg('b', 'fg7')]],
  ['bright colours are 8-15', `${ESC}[90ma${ESC}[97mb`, [seg('a', 'fg8'), seg('b', 'fg15')]],
  ['39 resets the colour only', `${ESC}[1;31ma${ESC}[39mb`, [seg('a', 'fg1 ansi-b'), seg('b', 'ansi-b')]],
  ['256 colours below 16 are basic', `${ESC}[38;5;3mx`, [seg('x', 'fg3')]],
  ['other 256 colours have no class', `${ESC}[31m${ESC}[38;5;208mx`, [seg('x')]],
  ['RGB foreground is skipped with its arguments', `${ESC}[38;2;255;0;0;1mx`, [seg('x', 'ansi-b')]],
  ['backgrounds are ignored', `${ESC}[48;5;1;42;4mx`, [seg('x', 'ansi-u')]],
  ['colon-separated parameters', `${ESC}[38:5:2mx`, [seg('x', 'fg2')]],
  // attributes and resets
  ['dim, italic, underline', `${ESC}[2;3;4mx`, [seg('x', 'ansi-d ansi-i ansi-u')]],
  ['22 ends bold and dim', `${ESC}[1;2ma${ESC}[22mb`, [seg('a', 'ansi-b ansi-d'), seg('b')]],
  ['23 and 24 end italic and underline', `${ESC}[3;4ma${ESC}[23mb${ESC}[24mc`, [seg('a', 'ansi-i ansi-u'), seg('b', 'ansi-u'), seg('c')]],
  ['an empty SGR resets', `${ESC}[1;33ma${ESC}[mb`, [seg('a', 'fg3 ansi-b'), seg('b')]],
  ['an empty parameter counts as 0', `${ESC}[1;;4mx`, [seg('x', 'ansi-u')]],
  ['a sequence with no text draws nothing', `${ESC}[31m${ESC}[0m`, []],
  // cursor and terminal junk
  ['erase line and cursor moves are dropped', `a${ESC}[2K${ESC}[1A${ESC}[10;20Hb`, [seg('ab')]],
  ['an OSC title ended by BEL is dropped', `${ESC}]0;title\x07done`, [seg('done')]],
  ['an OSC hyperlink ended by ST keeps its text', `${ESC}]8;;http://x${ESC}\\link${ESC}]8;;${ESC}\\`, [seg('link')]],
  ['a DCS string is dropped', `a${ESC}Pq#0;1${ESC}\\b`, [seg('ab')]],
  ['a two-byte escape is dropped', `a${ESC}Mb${ESC}7c`, [seg('ab7c')]],
  ['control bytes are dropped, tab and newline kept', 'a\x00\x07\x08\x0b\x0c\x7fb\tc\n', [seg('ab\tc\n')]],
  ['private modes are dropped', `${ESC}[?25l${ESC}[?1049hx${ESC}[?25h`, [seg('x')]],
  // carriage returns
  ['a progress bar keeps its last state', 'bar 10%\rbar 100%\n', [seg('bar 100%\n')]],
  ['CRLF is a newline', 'a\r\nb\r\n', [seg('a\nb\n')]],
  ['a line ending in CR keeps what the CR ended', 'x\rprogress\r\nnext', [seg('progress\nnext')]],
  ['colour across a carriage return', `${ESC}[32m10%\r100%${ESC}[0m`, [seg('100%')]],
];

for (const [name, input, expected] of rows) {
  test(`ansi: ${name}`, () => assert.deepEqual(drawn(input), expected));
}

test('ansi: no escape byte survives any input', () => {
  const junk = [`${ESC}`, `${ESC}[`, `${ESC}]`, `${ESC}[31`, `${ESC}]8;;x`, `${ESC}P`, `${ESC}${ESC}[m`, `${ESC}[1;2;3;4;5;6;7m`];
  for (const j of junk) {
    const text = card.ansiSegments(`a${j}b`).map((s) => s.text).join('');
    assert.ok(!text.includes(ESC), JSON.stringify(j));
  }
});

test('ansi: the state carries over lines until a reset', () => {
  assert.deepEqual(drawn(`${ESC}[33mwarn\nstill${ESC}[0m\nplain`),
    [seg('warn\nstill', 'fg3'), seg('\nplain')]);
});

const clipRows = [
  ['shorter text is kept', 'abc', 5, 'abc'],
  ['text of the limit is kept', 'abcde', 5, 'abcde'],
  ['longer text is cut', 'abcdef', 5, 'abcde'],
  ['an escape cut by the clip leaves its tail as text', `ab${ESC}[31mx`, 5, `ab${ESC}[3`],
];
for (const [name, text, max, expected] of clipRows) {
  test(`clip: ${name}`, () => assert.equal(card.clip(text, max), expected));
}

test('clip then parse: a cut sequence draws as plain text, never as an escape', () => {
  assert.deepEqual(drawn(card.clip(`ab${ESC}[31mx`, 5)), [seg('ab[3')]);
});
