// ---- checkpoint view: a checkpoint made, a restore, or a sandbox's checkpoints ----
const MAX_CHECKPOINT_ROWS = 200;
function checkpointPill(state) {
  return pill(state || 'unknown', state === 'ready' || state === 'restored' ? 'ok' : state === 'failed' ? 'bad'
    : state === 'saving' || state === 'restoring' ? 'warn' : null);
}
function seconds(ms) { return num(ms) === null ? '' : (ms / 1000).toFixed(1) + ' s'; }
function noteList(title, items) {
  if (!Array.isArray(items) || !items.length) return;
  const box = el('div', 'note');
  box.setAttribute('data-role', title === 'Kept:' || title === 'Brought back:' ? 'kept' : 'not-kept');
  box.appendChild(el('div', null, title));
  const ul = el('ul');
  for (const item of items.slice(0, 20)) if (str(item)) ul.appendChild(el('li', null, item));
  box.appendChild(ul);
  card.appendChild(box);
}
function checkpointRows(t, c) {
  row(t, 'checkpoint', str(c.checkpoint_id));
  row(t, 'label', str(c.label));
  row(t, 'size', num(c.size_bytes) !== null && c.size_bytes > 0 ? bytes(c.size_bytes) : '');
  row(t, 'took', seconds(c.took_ms));
  row(t, 'saved', str(c.created_at));
  if (c.pinned === true) row(t, 'pinned', 'kept when the budget evicts');
  if (Array.isArray(c.docker_images) && c.docker_images.length)
    row(t, 'docker images', c.docker_images.slice(0, 10).map(str).filter(Boolean).join(', '));
  if (c.clone_state_kept === true) row(t, 'clone', 'commits, branches and uncommitted changes kept');
  row(t, 'failure', str(c.failure));
}
function viewCheckpoint(tool, r) {
  const s = r.structuredContent;
  if (Array.isArray(s.checkpoints)) {
    const list = s.checkpoints;
    card.appendChild(header(tool, pill(list.length + (list.length === 1 ? ' checkpoint' : ' checkpoints')),
      isObj(s.restoring) ? pill('restoring', 'warn') : null));
    if (!list.length) card.appendChild(el('div', 'note', 'No checkpoints.'));
    for (const c of list.slice(0, MAX_CHECKPOINT_ROWS)) {
      if (!isObj(c)) continue;
      const item = el('div', 'list-item');
      item.setAttribute('data-role', 'checkpoint');
      item.appendChild(checkpointPill(str(c.state)));
      const t = el('table');
      checkpointRows(t, c);
      item.appendChild(t);
      card.appendChild(item);
    }
    return;
  }
  card.appendChild(header(tool, checkpointPill(str(s.state))));
  const t = el('table');
  t.setAttribute('data-role', 'checkpoint');
  row(t, 'sandbox', str(s.sandbox_id));
  checkpointRows(t, s);
  row(t, 'undo with', str(s.undo_checkpoint_id));
  card.appendChild(t);
  noteList('Kept:', s.kept);
  noteList('Brought back:', s.restored);
  noteList('Not kept:', s.not_kept);
  noteList('Not brought back:', s.not_restored);
  if (Array.isArray(s.evicted) && s.evicted.length)
    noteList('Removed by the checkpoint budget:', s.evicted.map((e) => (isObj(e) ? str(e.label) || str(e.checkpoint_id) : '')));
  if (str(s.message)) card.appendChild(el('div', 'note', s.message));
}
