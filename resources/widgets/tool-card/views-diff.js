// ---- the diff view: files changed, each with its hunks (show_changes, edit, write, apply_patch) ----
const MAX_DIFF_CHARS = 400000;
const MAX_DIFF_LINES_PER_FILE = 4000;
const FILES_OPEN = 8;              // file sections drawn open; the rest are drawn when opened
function drawHunks(box, file) {
  const frag = document.createDocumentFragment();
  for (const m of file.meta) if (!/^(index |new file mode|deleted file mode)/.test(m)) frag.appendChild(el('div', 'ln m', m));
  const shown = limitHunks(file.hunks, MAX_DIFF_LINES_PER_FILE);
  for (const h of shown.hunks) {
    const d = el('details', 'hunk');
    d.open = true;
    d.appendChild(el('summary', null, h.header));
    const body = document.createDocumentFragment();
    for (const l of h.lines) body.appendChild(el('div', 'ln' + (l[0] === '+' ? ' a' : l[0] === '-' ? ' d' : l[0] === '\\' ? ' m' : ''), l));
    d.appendChild(body);
    frag.appendChild(d);
  }
  if (shown.cut) frag.appendChild(el('div', 'note', 'The rest of this file is not shown.'));
  if (!file.hunks.length && !file.meta.length) frag.appendChild(el('div', 'ln m', file.binary ? '(binary)' : '(no diff shown)'));
  box.appendChild(frag);
}
function fileSection(file, open) {
  const d = el('details', 'file');
  d.setAttribute('data-path', file.path);
  const s = el('summary');
  s.appendChild(el('span', 'path', file.path));
  if (file.status) s.appendChild(el('span', 'status', file.status));
  if (file.added !== null) s.appendChild(el('span', 'add', '+' + file.added));
  if (file.removed !== null) s.appendChild(el('span', 'del', '\u2212' + file.removed));
  d.appendChild(s);
  const box = el('div', 'hunks');
  d.appendChild(box);
  let drawn = false;
  const draw = () => { if (!drawn) { drawn = true; drawHunks(box, file); } };
  if (open) { d.open = true; draw(); }
  d.addEventListener('toggle', () => { if (d.open) draw(); });
  return d;
}
function viewDiff(tool, r, input) {
  const s = r.structuredContent;
  const diffText = clip(str(s.diff), MAX_DIFF_CHARS);
  let parsed = diffText ? parseUnified(diffText) : [];
  if (tool === 'apply_patch' && input && typeof input.patch === 'string') parsed = parsePatch(clip(input.patch, MAX_DIFF_CHARS));
  const byPath = new Map(parsed.map((f) => [f.path, f]));
  // The result's own file list is the truth for names and counts; the diff supplies hunks.
  let files = [];
  if (Array.isArray(s.files)) {
    for (const f of s.files.slice(0, 5000)) {
      if (!isObj(f)) continue;
      const path = str(f.path);
      // A result may name a file by its absolute path where the diff or patch has it relative.
      let key = path;
      while (key && !byPath.has(key)) { const slash = key.indexOf('/'); key = slash < 0 ? '' : key.slice(slash + 1); }
      const d = key ? byPath.get(key) : undefined;
      if (key) byPath.delete(key);
      const where = Array.isArray(f.where) ? f.where.filter((w) => typeof w === 'string').join(', ') : '';
      files.push({ path, status: [str(f.status) || str(f.action), where].filter(Boolean).join(' \u00b7 '),
                   added: num(f.added) ?? num(f.lines_added) ?? (d ? d.added : null),
                   removed: num(f.removed) ?? num(f.lines_removed) ?? (d ? d.removed : null),
                   binary: f.binary === true, hunks: d ? d.hunks : [], meta: d ? d.meta : [] });
    }
    for (const d of byPath.values()) files.push(d);
  } else {
    files = parsed;
    if (!files.length && str(s.path)) files.push({ path: s.path, status: '', added: 0, removed: 0, hunks: [], meta: [] });
  }
  if (files.length === 1 && str(s.path) && files[0].path === '(diff)') files[0].path = s.path;
  let added = num(s.lines_added), removed = num(s.lines_removed);
  if (added === null) { added = 0; removed = 0; for (const f of files) { added += f.added || 0; removed += f.removed || 0; } }
  const count = num(s.files_changed) ?? files.length;
  const pills = [pill(count + (count === 1 ? ' file' : ' files')), el('span', 'add', '+' + added), el('span', 'del', '\u2212' + removed)];
  if (tool === 'edit' && num(s.replacements) !== null) pills.push(pill(s.replacements + (s.replacements === 1 ? ' replacement' : ' replacements')));
  if (tool === 'write') {
    if (s.created === true) pills.push(pill('created', 'ok'));
    if (num(s.bytes_written) !== null) pills.push(pill(bytes(s.bytes_written)));
  }
  card.appendChild(header(tool, ...pills));
  if (tool === 'show_changes') {
    const t = el('table');
    row(t, 'workspace', str(s.workspace_path));
    row(t, 'branch', str(s.branch));
    if (str(s.base_commit) || str(s.head_commit)) row(t, 'commits', clip(str(s.base_commit), 12) + '..' + clip(str(s.head_commit), 12));
    if (Array.isArray(s.commits) && s.commits.length) {
      const ul = el('div');
      for (const c of s.commits.slice(0, 50)) if (isObj(c)) ul.appendChild(el('div', 'mono', clip(str(c.id), 10) + ' ' + str(c.subject)));
      if (s.commits.length > 50 || s.commits_truncated === true) ul.appendChild(el('div', 'muted', '\u2026 more commits'));
      row(t, 'log', ul);
    }
    if (t.childNodes.length) card.appendChild(t);
  }
  if (files.length) {
    const box = el('div', 'files');
    box.setAttribute('data-role', 'files');
    const frag = document.createDocumentFragment();
    files.forEach((f, i) => frag.appendChild(fileSection(f, i < FILES_OPEN)));
    box.appendChild(frag);
    card.appendChild(box);
  } else if (str(s.path)) {
    card.appendChild(el('div', 'note', s.path + ': no change'));
  } else {
    card.appendChild(el('div', 'note', 'No changes.'));
  }
  if (s.diff_truncated === true || str(s.diff).length > MAX_DIFF_CHARS)
    card.appendChild(el('div', 'hint', 'The diff is cut here; show_changes with a path shows one file in full.'));
  if (s.files_truncated === true) card.appendChild(el('div', 'hint', 'More files changed than are listed.'));
}
