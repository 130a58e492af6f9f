// ---- sandbox, export and image views ----
const MAX_LIST_ROWS = 1000;
function sandboxTable(s) {
  const t = el('table');
  row(t, 'sandbox', str(s.sandbox_id));
  const mode = str(s.workspace_mode);
  row(t, 'workspace', [str(s.workspace_path) || str(s.workspace_id), mode ? '(' + mode + ')' : ''].filter(Boolean).join(' '));
  row(t, 'host folder', str(s.workspace_host_path));
  row(t, 'memory', str(s.memory));
  // A cloud sandbox: where it runs, when its time-to-live ends, and what the end does.
  const cloud = isObj(s.cloud) ? s.cloud : null;
  if (cloud || str(s.placement) === 'cloud') {
    const size = cloud ? str(cloud.size) : '';
    row(t, 'runs in', "Docker's cloud" + (size ? ' (' + size + ')' : ''));
    if (cloud) {
      row(t, 'expires', str(cloud.expires_at));
      row(t, 'at its end', str(cloud.at_end));
    }
  }
  row(t, 'created', str(s.created_at));
  row(t, 'idle until', str(s.idle_deadline));
  if (Array.isArray(s.ports) && s.ports.length) {
    const box = el('div');
    for (const p of s.ports.slice(0, 100)) {
      if (!isObj(p)) continue;
      const line = el('div');
      const label = (num(p.sandbox_port) ?? '?') + ' \u2192 ' + (str(p.url) || (str(p.host_ip) + ':' + (num(p.host_port) ?? '?')));
      const href = safeHttpUrl(p.url);
      line.appendChild(href ? link(href, label) : el('span', null, label));
      if (p.lan_wide === true) line.appendChild(el('span', 'muted', ' (whole LAN)'));
      box.appendChild(line);
    }
    row(t, 'ports', box);
  }
  row(t, 'failure', str(s.failure_reason));
  return t;
}
function statePill(state) {
  return pill(state || 'unknown', state === 'running' ? 'ok' : state === 'failed' || state === 'destroyed' ? 'bad' : state === 'sleeping' || state === 'stopped' ? 'warn' : null);
}
function viewSandbox(tool, r) {
  const s = r.structuredContent;
  card.appendChild(header(tool, statePill(str(s.state))));
  const t = sandboxTable(s);
  t.setAttribute('data-role', 'sandbox');
  card.appendChild(t);
}
function viewSandboxList(tool, r) {
  const s = r.structuredContent;
  const list = Array.isArray(s.sandboxes) ? s.sandboxes : [];
  card.appendChild(header(tool, pill(list.length + (list.length === 1 ? ' sandbox' : ' sandboxes'))));
  if (!list.length) card.appendChild(el('div', 'note', 'No sandboxes.'));
  const frag = document.createDocumentFragment();
  for (const sb of list.slice(0, MAX_LIST_ROWS)) {
    if (!isObj(sb)) continue;
    const item = el('div', 'list-item');
    item.setAttribute('data-role', 'sandbox');
    item.appendChild(statePill(str(sb.state)));
    item.appendChild(sandboxTable(sb));
    frag.appendChild(item);
  }
  card.appendChild(frag);
}
function viewExport(tool, r) {
  const s = r.structuredContent;
  card.appendChild(header(tool, s.exported === true ? pill('exported', 'ok') : pill('not exported', 'warn')));
  const t = el('table');
  row(t, 'branch', str(s.branch));
  row(t, 'repository', str(s.host_repository));
  row(t, 'commit', str(s.commit));
  if (num(s.commits) !== null) row(t, 'commits', s.commits);
  if (s.includes_uncommitted_changes === true) row(t, 'uncommitted', 'included as one commit');
  card.appendChild(t);
  if (str(s.command)) {
    const c = el('div', 'cmd', s.command);
    c.setAttribute('data-role', 'command');
    card.appendChild(c);
  }
  if (str(s.message)) card.appendChild(el('div', 'note', s.message));
}
function viewImage(tool, r) {
  const s = r.structuredContent;
  const pills = [];
  if (num(s.width) !== null && num(s.height) !== null) pills.push(pill(s.width + '\u00d7' + s.height));
  if (str(s.mime_type)) pills.push(pill(s.mime_type));
  if (num(s.bytes) !== null) pills.push(pill(bytes(s.bytes)));
  if (s.scaled === true && num(s.shown_width) !== null) pills.push(pill('shown ' + s.shown_width + '\u00d7' + s.shown_height));
  card.appendChild(header(tool, ...pills));
  if (str(s.path)) card.appendChild(el('div', 'note mono', s.path));
  const block = (Array.isArray(r.content) ? r.content : []).find((c) => isObj(c) && c.type === 'image');
  const mime = block ? str(block.mimeType) : '';
  const data = block ? str(block.data) : '';
  if (/^image\/(png|jpeg|gif|webp|bmp)$/.test(mime) && /^[A-Za-z0-9+/]+={0,2}$/.test(data)) {
    const img = el('img', 'shot');
    img.alt = str(s.path) || 'image';
    img.src = 'data:' + mime + ';base64,' + data;
    img.addEventListener('load', sendSize);
    card.appendChild(img);
  } else {
    card.appendChild(el('div', 'note', 'The image is not in this result.'));
  }
}
