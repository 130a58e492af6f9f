// ---- file view: a file that crossed between the chat, the host and the sandbox (import_file, export_file) ----
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
  filePreview(isObj(r._meta) ? r._meta['chat2sbx/preview'] : undefined, str(s.file_name));
  if (str(s.message)) card.appendChild(el('div', 'note', s.message));
}
// The server's preview of an exported file (_meta, for the card only): the start of a text, a small image.
function filePreview(p, name) {
  if (!isObj(p)) return;
  if (p.kind === 'text' && str(p.text)) {
    const pre = el('div', 'term', clip(p.text, 8000));
    pre.setAttribute('data-role', 'preview');
    card.appendChild(pre);
    if (p.truncated === true) card.appendChild(el('div', 'hint', 'The start of the file; the whole file is on the host.'));
    return;
  }
  const mime = str(p.mime_type);
  const data = str(p.data);
  if (p.kind === 'image' && /^image\/(png|jpeg|gif|webp)$/.test(mime) && /^[A-Za-z0-9+/]+={0,2}$/.test(data)) {
    const img = el('img', 'shot');
    img.setAttribute('data-role', 'preview');
    img.alt = name || 'image';
    img.src = 'data:' + mime + ';base64,' + data;
    img.addEventListener('load', sendSize);
    card.appendChild(img);
  }
}
