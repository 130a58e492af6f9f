// ---- file view: a file that crossed between the chat, the host and the sandbox (import_file) ----
function viewFile(tool, r) {
  const s = r.structuredContent;
  const pills = [];
  if (num(s.size) !== null) pills.push(pill(bytes(s.size), 'ok'));
  if (str(s.mime_type)) pills.push(pill(s.mime_type));
  card.appendChild(header(tool, ...pills));
  const t = el('table');
  t.setAttribute('data-role', 'file');
  row(t, 'file', str(s.file_name));
  row(t, 'in the sandbox', str(s.path));
  row(t, 'on the host', str(s.host_path));
  row(t, 'sha256', str(s.sha256));
  card.appendChild(t);
  if (str(s.message)) card.appendChild(el('div', 'note', s.message));
}
