/**
 * The dashboard's two static assets, served from `/assets/`: its stylesheet and a small script
 * (copy buttons, confirmations). Kept as files of our own so the CSP can forbid inline code.
 */

/** `/assets/app.css`. */
export const APP_CSS = `
:root { --fg:#1b1f24; --muted:#5b6470; --line:#dde2e8; --bg:#f7f8fa; --card:#fff; --accent:#7a3e12;
  --ok:#1f7a3a; --warn:#9a6200; --bad:#b3261e; font-family: system-ui, -apple-system, "Segoe UI", sans-serif; }
* { box-sizing: border-box; }
body { margin:0; color:var(--fg); background:var(--bg); line-height:1.5; }
header.top { background:#2b1a0e; color:#fff; padding:.6rem 1.5rem; display:flex; gap:1.2rem; align-items:center; flex-wrap:wrap; }
header.top a { color:#f5dcc4; text-decoration:none; }
header.top a.brand { color:#fff; font-weight:700; font-size:1.15rem; margin-right:1rem; }
header.top form { margin:0 0 0 auto; }
header.top button { background:none; border:1px solid #f5dcc4; color:#f5dcc4; }
main { max-width:980px; margin:1.5rem auto; padding:0 1.5rem; }
h1 { font-size:1.5rem; margin:.2rem 0 1rem; }
h2 { font-size:1.15rem; margin:1.6rem 0 .6rem; }
.card { background:var(--card); border:1px solid var(--line); border-radius:8px; padding:1rem 1.2rem; margin:0 0 1rem; }
table { width:100%; border-collapse:collapse; background:var(--card); border:1px solid var(--line); }
th, td { text-align:left; padding:.5rem .7rem; border-bottom:1px solid var(--line); vertical-align:top; }
th { font-size:.85rem; color:var(--muted); font-weight:600; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size:.9rem; }
pre { background:#f1f3f5; padding:.7rem; border-radius:6px; overflow:auto; }
label { display:block; margin:.5rem 0 .2rem; font-weight:600; }
input[type=text], input[type=email], input[type=password], input[type=url], select {
  width:100%; max-width:26rem; padding:.45rem .55rem; border:1px solid var(--line); border-radius:6px; font-size:1rem; }
button, .button { display:inline-block; background:var(--accent); color:#fff; border:0; border-radius:6px; padding:.45rem .9rem;
  font-size:.95rem; cursor:pointer; text-decoration:none; }
button.secondary { background:#fff; color:var(--fg); border:1px solid var(--line); }
button:disabled, input:disabled { opacity:.55; cursor:not-allowed; }
button.danger { background:var(--bad); }
form.inline { display:inline; }
.muted { color:var(--muted); }
.badge { display:inline-block; border-radius:999px; padding:0 .55rem; font-size:.8rem; font-weight:600; }
.badge.online { background:#dff3e4; color:var(--ok); }
.badge.offline { background:#eceff2; color:var(--muted); }
.badge.stopped { background:#fde7e5; color:var(--bad); }
.notice, .banner { border-radius:6px; padding:.7rem 1rem; margin:0 0 1rem; border:1px solid; }
.banner { background:#fff4db; border-color:#f0d58f; }
.notice.error { background:#fde7e5; border-color:#f3b8b2; color:#6b1711; }
.notice.info { background:#e8f1fb; border-color:#b9d3f0; }
.notice.warn { background:#fff4db; border-color:#f0d58f; }
.plans { display:grid; grid-template-columns:repeat(auto-fit, minmax(220px, 1fr)); gap:1rem; }
.plan h3 { margin:.1rem 0; }
.plan .price { font-size:1.6rem; font-weight:700; }
.plan ul { padding-left:1.1rem; margin:.6rem 0; }
.meter { display:block; width:100%; max-width:18rem; height:.6rem; appearance:none; border:0; border-radius:999px; background:#eceff2; }
.meter::-webkit-progress-bar { background:#eceff2; border-radius:999px; }
.meter::-webkit-progress-value { background:var(--ok); border-radius:999px; }
.meter.warn::-webkit-progress-value { background:var(--warn); }
.meter.full::-webkit-progress-value { background:var(--bad); }
.meter::-moz-progress-bar { background:var(--ok); }
.meter.warn::-moz-progress-bar { background:var(--warn); }
.meter.full::-moz-progress-bar { background:var(--bad); }
.key { font-size:1rem; background:#fff4db; padding:.3rem .5rem; border-radius:4px; word-break:break-all; }
nav.tabs { display:flex; gap:.3rem; border-bottom:1px solid var(--line); margin:0 0 1rem; flex-wrap:wrap; }
nav.tabs a { padding:.4rem .9rem; text-decoration:none; color:var(--muted); border:1px solid transparent; border-bottom:0; border-radius:6px 6px 0 0; }
nav.tabs a.active { color:var(--fg); background:var(--card); border-color:var(--line); font-weight:600; }
textarea { width:100%; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size:.9rem; border:1px solid var(--line); border-radius:6px; padding:.5rem; }
form.filters input[type=text] { max-width:18rem; }
table.diff td.before { background:#fde7e5; }
table.diff td.after { background:#dff3e4; }
table.diff pre { background:none; padding:0; margin:0; white-space:pre-wrap; word-break:break-all; }
.tool-change h3 { margin:.1rem 0 .4rem; }
mark.np { background:#fff3d6; color:var(--warn); border:1px dashed var(--warn); border-radius:3px; padding:0 .15em; margin:0 .05em; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size:.8em; }
.tool-change form.inline { margin-right:.4rem; }
.chart-box { display:grid; grid-template-columns:auto minmax(0, 1fr); gap:.3rem .5rem; margin:0 0 .4rem; }
.chart-y { display:flex; flex-direction:column; justify-content:space-between; align-items:flex-end; font-size:.8rem; line-height:1; color:var(--muted); font-variant-numeric:tabular-nums; }
svg.bars { display:block; width:100%; height:9rem; }
.chart-x { grid-column:2; display:flex; justify-content:space-between; flex-wrap:wrap; gap:.2rem 1rem; font-size:.8rem; color:var(--muted); }
ul.latency-chart { list-style:none; margin:0; padding:0; }
ul.latency-chart li { margin:0 0 .7rem; }
.latency-label { display:block; font-size:.85rem; overflow-wrap:anywhere; }
.latency-row { display:flex; align-items:center; gap:.6rem; }
svg.latency-bars { display:block; flex:1 1 auto; min-width:3rem; height:18px; }
.latency-figures { flex:none; font-size:.8rem; color:var(--muted); font-variant-numeric:tabular-nums; white-space:nowrap; }
.legend .swatch { display:inline-block; width:.8rem; height:.8rem; border-radius:2px; vertical-align:middle; margin-left:.6rem; }
.swatch.answered { background:#7a3e12; } .swatch.errors { background:#b3261e; } .swatch.refused { background:#9a6200; }
pre { white-space:pre-wrap; word-break:break-word; }
.command-box { display:flex; gap:.5rem; align-items:flex-start; }
.command-box pre { flex:1 1 auto; min-width:0; margin:0; overflow-wrap:anywhere; }
.command-box button { flex:none; }
ol.steps { padding-left:1.3rem; } ol.steps li { margin:.4rem 0; }
.usage-rows { display:grid; grid-template-columns:10rem 1fr; gap:.3rem 1rem; margin-bottom:.6rem; }
.notice, .banner { overflow-wrap:anywhere; }
[hidden] { display:none !important; }
table { margin:0 0 1rem; }
td button, td .button { padding:.2rem .65rem; font-size:.85rem; }
.card > :first-child, .card > input[type=hidden]:first-child + * { margin-top:0; }
.card > :last-child { margin-bottom:0; }
h1 > code { display:block; font-size:.85rem; font-weight:400; margin-top:.15rem; overflow-wrap:anywhere; }
fieldset.choices { border:0; margin:0 0 .8rem; padding:0; min-width:0; }
label.choice { display:flex; gap:.6rem; align-items:flex-start; margin:.5rem 0; font-weight:400; }
label.choice input { flex:none; margin:.3rem 0 0; }
label.choice strong { display:block; }
fieldset.choices label.choice:first-of-type { margin-top:0; }
.sr-only { position:absolute; width:1px; height:1px; padding:0; margin:-1px; overflow:hidden; clip:rect(0 0 0 0); white-space:nowrap; border:0; }
.problem { display:block; color:var(--bad); margin-top:.2rem; }
#url-form { overflow-wrap:anywhere; }
#metrics td:nth-child(-n+2), #calls td:nth-child(2), #calls td:nth-child(3),
#live-tail td:nth-child(2), #live-tail td:nth-child(3) { overflow-wrap:anywhere; }
@media (max-width: 640px) {
  main { padding:0 1rem; }
  table { display:block; overflow-x:auto; }
}
`

/** `/assets/favicon.svg` (also answered at `/favicon.ico`): a burrow entrance. */
export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">
<rect width="32" height="32" rx="7" fill="#2b1a0e"/>
<path d="M6 25a10 10 0 0 1 20 0z" fill="#f5dcc4"/>
<path d="M11 25a5 5 0 0 1 10 0z" fill="#7a3e12"/>
</svg>
`

/**
 * `/assets/app.js`: copy buttons (`data-copy="<element id>"`), confirmations (`data-confirm`),
 * the live tail, buttons that only a deliberate gesture enables (`data-deliberate`), and the
 * sign-up hint's URL, which follows the account name as it is typed.
 */
export const APP_JS = `
(function deliberate() {
  // A button that grants something (the OAuth consent's Approve) starts disabled and is enabled
  // by a gesture made on this page: the pointer moving (16 px from where it was first seen), a
  // key pressed, or a touch elsewhere than on the button. A click meant for another window that
  // a page swapped this one under (double-clickjacking) lands on a disabled button.
  var buttons = document.querySelectorAll('[data-deliberate]');
  if (buttons.length === 0) return;
  var first = null;
  function enable() {
    buttons.forEach(function (b) { b.disabled = false; });
    var hint = document.getElementById('deliberate-hint');
    if (hint) hint.hidden = true;
    document.removeEventListener('pointermove', moved, true);
    document.removeEventListener('pointerdown', pressed, true);
    document.removeEventListener('keydown', typed, true);
  }
  function moved(e) {
    if (first === null) { first = { x: e.screenX, y: e.screenY }; return; }
    if (Math.abs(e.screenX - first.x) + Math.abs(e.screenY - first.y) >= 16) enable();
  }
  function pressed(e) {
    if (e.pointerType === 'mouse') { if (first === null) first = { x: e.screenX, y: e.screenY }; return; }
    if (!(e.target.closest && e.target.closest('[data-deliberate]'))) enable();
  }
  function typed(e) { if (!e.repeat) enable(); }
  document.addEventListener('pointermove', moved, true);
  document.addEventListener('pointerdown', pressed, true);
  document.addEventListener('keydown', typed, true);
})();
(function slugPreview() {
  // The sign-up hint's public URL, with the account name typed so far (as text, never markup),
  // and a word when the name is not one the form will take yet.
  var input = document.getElementById('slug');
  var shown = document.getElementById('url-form-slug');
  var problem = document.getElementById('slug-problem');
  if (!input || !shown) return;
  function update() {
    var slug = input.value.trim();
    shown.textContent = slug === '' ? '<account>' : slug;
    if (problem) problem.hidden = slug === '' || !input.validity.patternMismatch;
  }
  input.addEventListener('input', update);
  update();
})();
document.addEventListener('click', function (event) {
  var button = event.target.closest('[data-copy]');
  if (!button) return;
  var source = document.getElementById(button.getAttribute('data-copy'));
  if (!source || !navigator.clipboard) return;
  navigator.clipboard.writeText(source.textContent.trim()).then(function () {
    button.textContent = 'Copied';
  });
});
document.addEventListener('submit', function (event) {
  var message = event.target.getAttribute('data-confirm');
  if (message && !window.confirm(message)) event.preventDefault();
});
(function liveTail() {
  var table = document.getElementById('live-tail');
  if (!table || !window.EventSource) return;
  var body = table.querySelector('tbody');
  var status = document.getElementById('live-status');
  var source = new EventSource(table.getAttribute('data-stream'));
  function cell(row, text) { var td = document.createElement('td'); td.textContent = text; row.appendChild(td); return td; }
  // A name the local server chose, as the server's pages show one: hidden characters as marked
  // escapes, a badge when its letters mix scripts (\`shown\` is made by the server, text only).
  function name(parent, shown) {
    if (!shown) return;
    var code = document.createElement('code');
    code.className = 'name';
    shown.parts.forEach(function (p) {
      if (!p[1]) { code.appendChild(document.createTextNode(p[0])); return; }
      var mark = document.createElement('mark');
      mark.className = 'np';
      mark.textContent = p[0];
      code.appendChild(mark);
    });
    parent.appendChild(code);
    if (shown.mixed) {
      var flag = document.createElement('span');
      flag.className = 'badge stopped';
      flag.setAttribute('data-mixed-scripts', shown.mixed.join(' '));
      flag.textContent = 'mixes ' + shown.mixed.join(' and ');
      parent.appendChild(document.createTextNode(' '));
      parent.appendChild(flag);
    }
  }
  source.addEventListener('open', function () { if (status) status.textContent = 'Live: new calls appear at the top.'; });
  source.addEventListener('error', function () { if (status) status.textContent = 'Reconnecting to the live tail…'; });
  source.addEventListener('dropped', function (e) {
    var d = JSON.parse(e.data);
    if (status) status.textContent = d.count + ' calls were skipped while this page was behind.';
  });
  source.addEventListener('call', function (e) {
    var c = JSON.parse(e.data);
    var row = document.createElement('tr');
    row.setAttribute('data-call', c.id || '');
    cell(row, c.at.slice(11, 23));
    var method = cell(row, '');
    var link = document.createElement('a');
    link.href = table.getAttribute('data-detail') + '/' + c.id;
    name(link, c.method_shown);
    method.appendChild(link);
    name(cell(row, ''), c.tool_shown);
    var outcome = cell(row, '');
    var badge = document.createElement('span');
    badge.className = 'badge ' + (c.outcome === 'ok' ? 'online' : c.outcome === 'error' ? 'offline' : 'stopped');
    badge.setAttribute('data-outcome', c.outcome);
    badge.textContent = c.status + ' ' + (c.policy_code || c.outcome);
    outcome.appendChild(badge);
    cell(row, c.duration_ms + ' ms');
    cell(row, (c.session_id || '').slice(0, 12));
    body.insertBefore(row, body.firstChild);
    while (body.children.length > 200) body.removeChild(body.lastChild);
    // The table is hidden while it has no row (no empty header), and so is the "No traffic yet"
    // guide once a call came.
    table.hidden = false;
    var none = document.getElementById('no-traffic');
    if (none) none.hidden = true;
  });
})();
`
