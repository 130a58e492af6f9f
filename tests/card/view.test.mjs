// Which view the tool card draws: the one the server names in _meta["chat2sbx/view"], else the one
// the result's shape implies, else the text fallback. The header's tool name comes from
// _meta["chat2sbx/tool"] or the host, never from a list of tools in the card.
import assert from 'node:assert/strict';
import test from 'node:test';
import { loadParsers } from './card_parsers.mjs';

const card = loadParsers();
const terminal = { session_id: 'bash_1', status: 'exited', output: 'hi\n' };
const sandbox = { sandbox_id: 'sb_1', state: 'running', ports: [] };
const named = (view, structuredContent = {}) => ({ structuredContent, _meta: { 'chat2sbx/view': view } });

const rows = [
  // the server names the view
  ['named terminal', named('terminal'), 'terminal'],
  ['named diff', named('diff'), 'diff'],
  ['named sandbox', named('sandbox'), 'sandbox'],
  ['named sandbox list', named('sandbox-list'), 'sandbox-list'],
  ['named export', named('export'), 'export'],
  ['named image', named('image'), 'image'],
  ['named file', named('file'), 'file'],
  ['named checkpoint', named('checkpoint'), 'checkpoint'],
  ['the name wins over the shape', named('diff', terminal), 'diff'],
  // a name the card does not know, or none: the shape
  ['unknown name: shape', named('spreadsheet', terminal), 'terminal'],
  ['a name of the wrong type: shape', named(['terminal'], sandbox), 'sandbox'],
  ['a tool name is not a view name', { structuredContent: sandbox, _meta: { 'chat2sbx/view': 'sandbox_get' } }, 'sandbox'],
  ['no _meta: terminal shape', { structuredContent: terminal }, 'terminal'],
  ['sandbox list shape', { structuredContent: { sandboxes: [], limits: {} } }, 'sandbox-list'],
  ['sandbox shape', { structuredContent: sandbox }, 'sandbox'],
  ['export shape', { structuredContent: { sandbox_id: 'sb_1', exported: false, message: 'nothing' } }, 'export'],
  ['diff shape (diff text)', { structuredContent: { path: 'a', diff: '' } }, 'diff'],
  ['diff shape (file list)', { structuredContent: { files: [] } }, 'diff'],
  ['image shape', { structuredContent: { path: 'a.png', mime_type: 'image/png', width: 2, height: 1 } }, 'image'],
  ['file shape', { structuredContent: { path: '~/workspace/a.pdf', size: 3, sha256: 'ab', file_name: 'a.pdf' } }, 'file'],
  ['checkpoint shape', { structuredContent: { checkpoint_id: 'ckp_1', sandbox_id: 'sb_1', state: 'ready' } }, 'checkpoint'],
  ['checkpoint list shape', { structuredContent: { sandbox_id: 'sb_1', checkpoints: [] } }, 'checkpoint'],
  ['a sandbox with its checkpoints is a sandbox', { structuredContent: { ...sandbox, workspace_id: 'ws_1', checkpoints: [] } }, 'sandbox'],
  ['unknown shape', { structuredContent: { matches: [] } }, 'fallback'],
  // results no view draws
  ['an error, even when named', { isError: true, structuredContent: terminal, _meta: { 'chat2sbx/view': 'terminal' } }, 'fallback'],
  ['no structuredContent', { content: [{ type: 'text', text: 'x' }], _meta: { 'chat2sbx/view': 'terminal' } }, 'fallback'],
  ['structuredContent not an object', { structuredContent: [1, 2], _meta: { 'chat2sbx/view': 'diff' } }, 'fallback'],
  ['no result', null, 'fallback'],
];
for (const [name, result, view] of rows) {
  test(`view: ${name}`, () => assert.equal(card.viewOf(result), view));
}

const toolRows = [
  ['_meta names the tool', { _meta: { 'chat2sbx/tool': 'bash_poll' } }, 'bash', 'bash_poll'],
  ['else the host does', { _meta: {} }, 'bash', 'bash'],
  ['else none', { structuredContent: terminal }, null, null],
  ['a name of the wrong type is ignored', { _meta: { 'chat2sbx/tool': 7 } }, 'edit', 'edit'],
];
for (const [name, result, hostName, tool] of toolRows) {
  test(`tool name: ${name}`, () => assert.equal(card.toolOf(result, hostName), tool));
}
