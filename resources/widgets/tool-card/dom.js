// ---- the page's elements, made from text only ----
const card = document.getElementById('card');
function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
}
function pill(text, kind) { return el('span', 'pill' + (kind ? ' ' + kind : ''), text); }
function header(tool, ...pills) {
  const h = el('header');
  h.appendChild(el('span', 'tool', tool || 'chat2sbx'));
  for (const p of pills) if (p) h.appendChild(p);
  return h;
}
function row(table, label, value) {
  if (value === undefined || value === null || value === '') return;
  const tr = el('tr');
  tr.appendChild(el('th', null, label));
  const td = el('td');
  if (value instanceof Node) td.appendChild(value); else td.textContent = String(value);
  tr.appendChild(td);
  table.appendChild(tr);
}
function link(href, text) {
  const a = el('a', null, text);
  a.href = href;
  a.target = '_blank';
  a.rel = 'noopener noreferrer';
  a.addEventListener('click', (ev) => {
    if (host.canOpenLinks) { ev.preventDefault(); host.request('ui/open-link', { url: href }).catch(() => {}); }
    else if (window.openai && typeof window.openai.openExternal === 'function') { ev.preventDefault(); window.openai.openExternal({ href }); }
  });
  return a;
}
