// ---- text views: a command's terminal output, and any other result's text ----
const MAX_OUTPUT_CHARS = 200000;   // a bash result holds at most 60,000 bytes; anything longer is cut here
function renderAnsi(target, raw) {
  const frag = document.createDocumentFragment();
  for (const s of ansiSegments(raw)) frag.appendChild(s.cls ? el('span', s.cls, s.text) : document.createTextNode(s.text));
  target.appendChild(frag);
}
function viewTerminal(tool, r, input) {
  const s = r.structuredContent;
  const status = str(s.status);
  const exit = num(s.exit_code);
  const pills = [pill(status || 'unknown', status === 'running' ? 'info' : status === 'lost' ? 'warn' : null)];
  if (exit !== null) pills.push(pill('exit ' + exit, exit === 0 ? 'ok' : 'bad'));
  if (s.timed_out === true) pills.push(pill('timed out', 'bad'));
  const elapsed = num(s.elapsed_ms) ?? num(r._meta && r._meta['chat2sbx/elapsed_ms']);
  if (elapsed !== null) pills.push(pill(elapsed < 1000 ? elapsed + ' ms' : (elapsed / 1000).toFixed(1) + ' s', null));
  if (str(s.session_id)) pills.push(el('span', 'muted mono', s.session_id));
  card.appendChild(header(tool, ...pills));
  const command = tool === 'bash' && input ? str(input.command) : '';
  if (command) card.appendChild(el('div', 'cmd', clip(command, 4000)));
  if (tool === 'bash_write' && input && str(input.input)) card.appendChild(el('div', 'note', 'typed: ' + JSON.stringify(clip(input.input, 400))));
  const out = str(s.output);
  const term = el('div', 'term');
  term.setAttribute('data-role', 'output');
  renderAnsi(term, clip(out, MAX_OUTPUT_CHARS));
  card.appendChild(term);
  if (out.length > MAX_OUTPUT_CHARS) card.appendChild(el('div', 'note', 'Output shown up to ' + MAX_OUTPUT_CHARS + ' characters.'));
  if (s.has_more_output === true)
    card.appendChild(el('div', 'hint', 'More output is waiting: bash_poll ' + str(s.session_id) + ' returns the rest.'));
  else if (status === 'running')
    card.appendChild(el('div', 'hint', 'Still running: bash_poll ' + str(s.session_id) + ' returns new output and the exit code.'));
  if (str(s.lost_reason)) card.appendChild(el('div', 'note', 'Lost: ' + s.lost_reason));
  if (str(s.wake_note)) card.appendChild(el('div', 'note', s.wake_note));
}
function viewFallback(tool, r) {
  card.appendChild(header(tool, r.isError === true ? pill('failed', 'bad') : null));
  const texts = (Array.isArray(r.content) ? r.content : []).filter((c) => isObj(c) && c.type === 'text').map((c) => str(c.text));
  let text = texts.join('\n');
  if (!text && r.structuredContent !== undefined) {
    try { text = JSON.stringify(r.structuredContent, null, 2); } catch (e) { text = ''; }
  }
  const box = el('div', r.isError === true ? 'error' : 'term');
  box.setAttribute('data-role', r.isError === true ? 'error' : 'text');
  renderAnsi(box, clip(text, MAX_OUTPUT_CHARS));
  card.appendChild(box);
}
