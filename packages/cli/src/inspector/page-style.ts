/**
 * The inspector's stylesheet (`/style.css`): a quiet light theme with a dark variant.
 * Kept as a string so the build ships it with the compiled code.
 */

/** The stylesheet text. */
export const PAGE_STYLE = String.raw`:root {
  color-scheme: light dark;
  --bg: #f6f7f9;
  --panel: #ffffff;
  --text: #1d2433;
  --muted: #6b7385;
  --line: #e1e4ea;
  --accent: #8a5a2b;
  --accent-text: #ffffff;
  --sel: #f3e9dd;
  --ok: #1f7a3f;
  --warn: #a15c00;
  --err: #b3261e;
  --code: #f1f3f6;
  --key: #7a3e9d;
  --str: #1f6f4a;
  --num: #1e5aa8;
  --lit: #a13d63;
  font: 14px/1.45 system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #14161b;
    --panel: #1c1f26;
    --text: #e4e7ee;
    --muted: #9aa2b3;
    --line: #2d323d;
    --accent: #c98a4b;
    --accent-text: #14161b;
    --sel: #2e2820;
    --ok: #5cc887;
    --warn: #e0a84f;
    --err: #f07b72;
    --code: #161920;
    --key: #c79be8;
    --str: #7fd1a6;
    --num: #7fb2f0;
    --lit: #ef8fb4;
  }
}
* { box-sizing: border-box; }
html, body { height: 100%; margin: 0; }
body { background: var(--bg); color: var(--text); display: flex; flex-direction: column; }
header {
  display: flex; align-items: center; gap: 16px; padding: 8px 16px;
  background: var(--panel); border-bottom: 1px solid var(--line);
}
header h1 { font-size: 15px; margin: 0; font-weight: 600; }
header h1 .mark { color: var(--accent); }
nav { display: flex; gap: 4px; }
nav button { background: none; border: none; border-bottom: 2px solid transparent; border-radius: 0; }
nav button[aria-selected='true'] { border-bottom-color: var(--accent); color: var(--text); font-weight: 600; }
.spacer { flex: 1; }
.live { font-size: 12px; color: var(--muted); }
.live::before { content: '●'; margin-right: 4px; }
.live.on::before { color: var(--ok); }
.live.off::before, .live.error::before { color: var(--err); }
button {
  font: inherit; color: var(--muted); background: var(--panel); border: 1px solid var(--line);
  border-radius: 6px; padding: 4px 10px; cursor: pointer;
}
button:hover:not(:disabled) { color: var(--text); border-color: var(--muted); }
button:disabled { opacity: 0.5; cursor: default; }
button.primary { background: var(--accent); color: var(--accent-text); border-color: var(--accent); }
button.primary:hover:not(:disabled) { color: var(--accent-text); border-color: var(--accent); filter: brightness(1.1); }
main { flex: 1; min-height: 0; }
main[hidden] { display: none; }
.traffic { display: grid; grid-template-columns: minmax(460px, 42%) 1fr; }
.list { overflow: auto; border-right: 1px solid var(--line); background: var(--panel); }
table.traffic-table { width: 100%; border-collapse: collapse; font-size: 13px; table-layout: fixed; }
.traffic-table th:nth-child(1) { width: 104px; }
.traffic-table th:nth-child(3) { width: 26%; }
.traffic-table th:nth-child(4) { width: 64px; }
.traffic-table th:nth-child(5) { width: 76px; text-align: right; }
.traffic-table th {
  position: sticky; top: 0; background: var(--panel); text-align: left; font-weight: 500;
  color: var(--muted); padding: 6px 8px; border-bottom: 1px solid var(--line);
}
.traffic-table td {
  padding: 5px 8px; border-bottom: 1px solid var(--line); white-space: nowrap;
  overflow: hidden; text-overflow: ellipsis;
}
.traffic-table tr[data-id] { cursor: pointer; }
.traffic-table tr[data-id]:hover { background: var(--bg); }
.traffic-table tr.selected, .traffic-table tr.selected:hover { background: var(--sel); }
.traffic-table tr.failed td.method { color: var(--err); }
.traffic-table tr.running td.latency { color: var(--muted); }
td.time, td.latency { font-variant-numeric: tabular-nums; color: var(--muted); }
td.method { font-family: ui-monospace, 'SF Mono', Menlo, Consolas, monospace; font-size: 12px; }
td.latency { text-align: right; }
.st-2xx { color: var(--ok); }
.st-3xx { color: var(--muted); }
.st-4xx { color: var(--warn); }
.st-5xx { color: var(--err); }
td.status.rpc-error::after { content: ' ⚠'; color: var(--err); }
#empty { padding: 24px 16px; color: var(--muted); }
.detail { overflow: auto; padding: 16px 20px; }
.placeholder { color: var(--muted); margin-top: 40px; text-align: center; }
.detail-head { display: flex; justify-content: space-between; align-items: flex-start; gap: 16px; }
.detail-head h2 { margin: 0; font-size: 17px; font-family: ui-monospace, 'SF Mono', Menlo, Consolas, monospace; }
.tool-name { color: var(--accent); }
.panel {
  background: var(--panel); border: 1px solid var(--line); border-radius: 8px;
  padding: 10px 12px; margin-top: 12px; min-width: 0;
}
.panel h3 { margin: 0 0 6px; font-size: 13px; font-weight: 600; }
.panel.replay { border-color: var(--accent); }
.responses { display: grid; grid-template-columns: repeat(auto-fit, minmax(280px, 1fr)); gap: 12px; }
.badge { font-size: 11px; font-weight: 600; border: 1px solid currentColor; border-radius: 10px; padding: 0 6px; margin-left: 4px; }
.muted { color: var(--muted); }
.small { font-size: 12px; }
.note { color: var(--warn); font-size: 12px; margin: 4px 0; }
.error { color: var(--err); white-space: pre-line; }
.ok { color: var(--ok); white-space: pre-line; }
details summary { cursor: pointer; color: var(--muted); font-size: 12px; margin: 4px 0; }
table.headers { font-size: 12px; border-collapse: collapse; margin-bottom: 6px; }
table.headers th { text-align: left; font-weight: 500; color: var(--muted); padding: 1px 12px 1px 0; vertical-align: top; }
table.headers td { font-family: ui-monospace, 'SF Mono', Menlo, Consolas, monospace; word-break: break-all; }
pre.code {
  background: var(--code); border-radius: 6px; padding: 8px 10px; margin: 4px 0; overflow: auto;
  max-height: 60vh; font: 12px/1.5 ui-monospace, 'SF Mono', Menlo, Consolas, monospace;
  white-space: pre-wrap; word-break: break-word;
}
.j-key { color: var(--key); }
.j-str { color: var(--str); }
.j-num { color: var(--num); }
.j-lit { color: var(--lit); }
ol.messages { list-style: none; padding: 0; margin: 0; }
ol.messages li + li { margin-top: 6px; }
.config { padding: 20px; max-width: 1000px; overflow: auto; }
.config h2 { margin: 0 0 4px; font-size: 17px; }
.config table { width: 100%; border-collapse: collapse; margin: 12px 0; }
.config th { text-align: left; color: var(--muted); font-weight: 500; font-size: 12px; padding: 4px; }
.config td { padding: 4px; }
.config input, .config select {
  font: 13px ui-monospace, 'SF Mono', Menlo, Consolas, monospace; width: 100%; padding: 5px 7px;
  border: 1px solid var(--line); border-radius: 6px; background: var(--panel); color: var(--text);
}
.config td:nth-child(1) { width: 180px; }
.config td:nth-child(2) { width: 90px; }
.config td:nth-child(4) { width: 80px; }
.config .actions { display: flex; gap: 8px; }
#config-output { margin-top: 12px; }
`
