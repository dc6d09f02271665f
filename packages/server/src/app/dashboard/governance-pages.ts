/**
 * The tunnel page's governance tabs: Traffic (the call history, filterable, each call's detail,
 * and a live tail the page's script reads as server-sent events, shown from its first call; with
 * no call recorded, what to do to see some), Metrics (per method and tool,
 * with SVG charts) and Policy (the policy document, edited as JSON, with its versions).
 */
import { CALLS_SCANNED_PER_PAGE } from '../../governance/call-log.js'
import type { CallFilter, CallView } from '../../governance/call-log.js'
import type { MetricsReport, MetricWindow } from '../../governance/metrics-report.js'
import type { PolicyView } from '../../governance/policies.js'
import { html, type SafeHtml } from '../../http/html.js'
import type { TunnelView } from '../tunnel-view.js'
import { formatBytes, formatCount, formatStoredInstant, formatStoredTime } from './format.js'
import { shownName, shownNameText, shownText, withEscapeBudget } from './shown-name.js'
import { csrfField, page, type Notice, type Viewer } from './layout.js'
import { chartMs, latencyChart, stackedBarChart } from './svg-chart.js'

/** The tabs of a tunnel's page. */
export type TunnelTab =
  'overview' | 'traffic' | 'metrics' | 'policy' | 'tools' | 'access' | 'domain'

const TABS: readonly [TunnelTab, string, string][] = [
  ['overview', 'Overview', ''],
  ['traffic', 'Traffic', '/traffic'],
  ['metrics', 'Metrics', '/metrics'],
  ['policy', 'Policy', '/policy'],
  ['tools', 'Tools', '/tools'],
  ['access', 'Access', '/access'],
  ['domain', 'Domain', '/domain'],
]

/**
 * The tab bar of tunnel `t`, `active` marked, and the banner telling that tools changed since
 * the owner approved them (when `t.toolsAwaiting` says so).
 */
export function tunnelTabs(t: TunnelView, active: TunnelTab): SafeHtml {
  const n = t.toolsAwaiting ?? 0
  const banner =
    n === 0
      ? ''
      : html`<p class="notice warn" id="tools-banner" role="alert">${n === 1 ? 'A tool' : `${n} tools`} of this tunnel changed since you approved ${n === 1 ? 'it' : 'them'}. ${active === 'tools' ? 'Review below.' : html`<a href="/dashboard/tunnels/${t.id}/tools">Review ${n === 1 ? 'it' : 'them'}</a>.`}</p>`
  return html`<nav class="tabs" aria-label="Tunnel">${TABS.map(
    ([tab, label, path]) =>
      html`<a href="/dashboard/tunnels/${t.id}${path}"${tab === active ? html` aria-current="page" class="active"` : ''}>${label}${tab === 'tools' && n > 0 ? html` <span class="badge stopped">${n}</span>` : ''}</a>`,
  )}</nav>${banner}`
}

/** A tunnel page's title: its name and MCP URL. */
export function tunnelHeading(t: TunnelView): SafeHtml {
  return html`<h1>${t.name ?? t.subdomain} <code class="muted">${t.publicUrl}/mcp</code></h1>`
}

/** A call's outcome as a badge. */
function outcomeBadge(c: Pick<CallView, 'outcome' | 'policyCode' | 'status'>): SafeHtml {
  const text = c.policyCode ?? c.outcome
  const kind = c.outcome === 'ok' ? 'online' : c.outcome === 'error' ? 'offline' : 'stopped'
  return html`<span class="badge ${kind}" data-outcome="${c.outcome}">${c.status} ${text}</span>`
}

/** Traffic: the filter form, the calls, the next page, the live tail. */
export function trafficPage(d: TrafficPageData): SafeHtml {
  return withEscapeBudget(() => renderTrafficPage(d))
}

/** What the Traffic tab shows. */
interface TrafficPageData {
  readonly viewer: Viewer
  readonly tunnel: TunnelView
  readonly calls: readonly CallView[]
  readonly filter: CallFilter
  readonly nextCursor: string | null
  readonly zeroKnowledge: boolean
  readonly notices?: readonly Notice[]
}

function renderTrafficPage(d: TrafficPageData): SafeHtml {
  const t = d.tunnel
  const base = `/dashboard/tunnels/${t.id}/traffic`
  const status = d.filter.status === undefined ? '' : String(d.filter.status)
  const filtered = Boolean(d.filter.tool || d.filter.method || status || d.filter.since)
  // Nothing recorded and nothing asked: what to do to see traffic, instead of empty tables.
  const none = d.calls.length === 0 && !filtered && d.nextCursor === null
  const rows = d.calls.map(
    (c) => html`<tr data-call="${c.id}">
  <td class="muted">${c.at.slice(11, 23)}</td>
  <td><a href="${base}/${c.id}">${shownName(c.method)}</a></td>
  <td>${shownName(c.tool)}</td>
  <td>${outcomeBadge(c)}</td>
  <td>${c.durationMs} ms</td>
  <td class="muted">${c.sessionId ? c.sessionId.slice(0, 12) : ''}</td>
</tr>`,
  )
  const next =
    d.nextCursor === null
      ? ''
      : html`<p><a class="button secondary" href="${base}?${nextQuery(d.filter, d.nextCursor)}">Older calls</a></p>`
  return page(
    { title: `${t.name ?? t.subdomain}: traffic`, viewer: d.viewer, notices: d.notices ?? [] },
    html`${tunnelHeading(t)}${tunnelTabs(t, 'traffic')}
${d.zeroKnowledge ? html`<p class="notice info">Zero-knowledge mode: calls are recorded without their content.</p>` : ''}
${
  none
    ? noTraffic(t)
    : html`<form method="get" action="${base}" class="card filters">
  <label for="f-tool">Tool</label><input id="f-tool" name="tool" type="text" value="${d.filter.tool ?? ''}" />
  <label for="f-method">Method</label><input id="f-method" name="method" type="text" value="${d.filter.method ?? ''}" />
  <label for="f-status">Status</label><input id="f-status" name="status" type="text" placeholder="200, ok, error, refused" value="${status}" />
  <label for="f-since">Since</label><input id="f-since" name="since" type="text" placeholder="2026-11-25T10:00:00Z" value="${d.filter.since?.toISOString() ?? ''}" />
  <p><button type="submit">Filter</button> <a href="${base}">Clear</a></p>
</form>`
}
<h2>Live</h2>
<p class="muted" id="live-status">Calls appear here as they happen.</p>
<table id="live-tail" data-stream="${base}/stream" data-detail="${base}" hidden><thead><tr><th>Time</th><th>Method</th><th>Tool</th><th>Outcome</th><th>Latency</th><th>Session</th></tr></thead><tbody></tbody></table>
${
  none
    ? ''
    : html`<h2>History</h2>
${
  d.calls.length === 0
    ? html`<p class="card" id="no-calls">No calls recorded${filtered ? ' match these filters' : ' yet'}${d.nextCursor === null ? '' : ` among the newest ${CALLS_SCANNED_PER_PAGE.toLocaleString('en-US')} looked through`}.</p>`
    : html`<table id="calls"><thead><tr><th>Time (UTC)</th><th>Method</th><th>Tool</th><th>Outcome</th><th>Latency</th><th>Session</th></tr></thead><tbody>${rows}</tbody></table>`
}
${next}`
}`,
  )
}

/** The Traffic tab of a tunnel that has recorded no call: how to see some. */
function noTraffic(t: TunnelView): SafeHtml {
  const tab = `/dashboard/tunnels/${t.id}`
  return html`<section class="card" id="no-traffic">
  <h2>No traffic yet</h2>
  <p>Every call an agent makes to this tunnel shows here, live, and stays in its history.</p>
  <ol class="steps">
    <li>${t.online ? html`<code>burrow up</code> is connected: this tunnel is online.` : html`Run <code>burrow up</code> with this tunnel's key beside your MCP server (the key was shown when the tunnel was made; <a href="${tab}">Rotate key</a> makes a new one).`}</li>
    <li>Give an agent the tunnel: its client configuration is on the <a href="${tab}">Overview</a> tab, and who may call it on the <a href="${tab}/access">Access</a> tab.</li>
    <li>Call a tool from the agent: the call appears below as it happens.</li>
  </ol>
</section>`
}

function nextQuery(filter: CallFilter, cursor: string): string {
  const q = new URLSearchParams()
  if (filter.tool) q.set('tool', filter.tool)
  if (filter.method) q.set('method', filter.method)
  if (filter.status !== undefined) q.set('status', String(filter.status))
  if (filter.since) q.set('since', filter.since.toISOString())
  q.set('cursor', cursor)
  return q.toString()
}

/** One call in detail. */
export function callPage(viewer: Viewer, t: TunnelView, c: CallView): SafeHtml {
  return withEscapeBudget(() => renderCallPage(viewer, t, c))
}

function renderCallPage(viewer: Viewer, t: TunnelView, c: CallView): SafeHtml {
  const body = (label: string, id: string, text: string | null) =>
    html`<h2>${label}</h2>${
      text === null
        ? html`<p class="muted" id="${id}">Not stored${c.policyCode === null ? ' (zero-knowledge mode, or no answer)' : ''}.</p>`
        : html`<pre id="${id}">${shownText(pretty(text))}</pre>`
    }`
  return page(
    { title: `${shownNameText(c.method)} at ${c.at}`, viewer },
    html`${tunnelHeading(t)}${tunnelTabs(t, 'traffic')}
<section class="card" id="call">
  <p><strong>${shownName(c.method)}</strong> ${shownName(c.tool)} ${outcomeBadge(c)}</p>
  <p class="muted" id="call-facts"><time datetime="${c.at}">${formatStoredInstant(c.at)}</time> · ${c.durationMs} ms to the answer · ${formatBytes(c.bytesIn ?? 0)} in, ${formatBytes(c.bytesOut ?? 0)} out · session <bdi>${c.sessionId ? shownName(c.sessionId) : 'none'}</bdi> · id <bdi>${c.rpcId ? shownName(c.rpcId) : 'none'}</bdi>${c.agent ? html` · agent <bdi id="call-agent">${shownName(c.agent)}</bdi>` : ''}</p>
  ${c.bodiesCut ? html`<p class="notice warn">A body was longer than 64 KiB, or the answer too large to copy as it passed; what is stored is cut.</p>` : ''}
</section>
${body('Request', 'request-body', c.requestBody)}
${body('Answer', 'response-body', c.responseBody)}
<p><a href="/dashboard/tunnels/${t.id}/traffic">All calls</a></p>`,
  )
}

function pretty(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2)
  } catch {
    return text
  }
}

/** A row's refusals: a badge per policy code with its count, or 0 when there were none. */
function refusalsCell(refusals: Readonly<Record<string, number>>): SafeHtml | string {
  const codes = Object.entries(refusals).filter(([, n]) => n > 0)
  if (codes.length === 0) return formatCount(0)
  return html`${codes.map(([code, n]) => html`<span class="badge stopped">${code} ${formatCount(n)}</span> `)}`
}

/** Metrics: the window links, the charts, the table. */
export function metricsPage(viewer: Viewer, t: TunnelView, report: MetricsReport): SafeHtml {
  const windows: MetricWindow[] = ['1h', '24h', '30d']
  // Periods start on UTC boundaries (ISO strings): the hour's minutes alone in the last hour;
  // the day's hours run from one day to another, so they name the day too; 30 days, days alone.
  const label = (start: string) =>
    report.span === '1d'
      ? start.slice(5, 10)
      : report.window === '1h'
        ? start.slice(11, 16)
        : start.slice(5, 16).replace('T', ' ')
  const per = { '5m': '5 minutes', '1h': 'hour', '1d': 'day' }[report.span]
  const bars = report.series.map((p) => ({
    label: label(p.start),
    parts: [
      { name: 'answered', value: p.calls - p.errors - p.refused, color: '#7a3e12' },
      { name: 'errors', value: p.errors, color: '#b3261e' },
      { name: 'refused', value: p.refused, color: '#9a6200' },
    ],
  }))
  const rows = report.methods.map(
    (m) => html`<tr data-method="${m.method}" data-tool="${m.tool ?? ''}">
  <td>${shownName(m.method)}</td><td>${shownName(m.tool)}</td><td data-calls>${formatCount(m.calls)}</td>
  <td data-errors>${formatCount(m.errors)}</td>
  <td data-refusals>${refusalsCell(m.refusals)}</td>
  <td data-p50>${chartMs(m.p50Ms)}</td><td data-p95>${chartMs(m.p95Ms)}</td><td data-p99>${chartMs(m.p99Ms)}</td>
</tr>`,
  )
  const latencies = report.methods
    .filter((m) => m.p50Ms !== null)
    .slice(0, 20)
    .map((m) => ({
      label: m.tool
        ? `${shownNameText(m.method)} ${shownNameText(m.tool)}`
        : shownNameText(m.method),
      p50: m.p50Ms,
      p95: m.p95Ms,
      p99: m.p99Ms,
    }))
  return page(
    { title: `${t.name ?? t.subdomain}: metrics`, viewer },
    html`${tunnelHeading(t)}${tunnelTabs(t, 'metrics')}
<p>${windows.map((w) =>
      w === report.window
        ? html`<strong class="window">Last ${w}</strong> `
        : html`<a href="/dashboard/tunnels/${t.id}/metrics?window=${w}">Last ${w}</a> `,
    )}</p>
<section class="card"><h2>Calls</h2>${stackedBarChart('calls-chart', `Calls per ${per}`, bars)}
<p class="muted legend" id="calls-legend"><span class="swatch answered"></span> answered <span class="swatch errors"></span> errors <span class="swatch refused"></span> refused · times in UTC</p></section>
<section class="card"><h2>Latency (ms: p50 / p95 / p99)</h2>${
      latencies.length === 0
        ? html`<p class="muted" id="no-latency">No answered calls in this window.</p>`
        : latencyChart('latency-chart', latencies)
    }</section>
${
  report.methods.length === 0
    ? html`<p class="card" id="no-metrics">No calls in this window.</p>`
    : html`<table id="metrics"><thead><tr><th>Method</th><th>Tool</th><th>Calls</th><th>Errors</th><th>Refusals</th><th>p50 ms</th><th>p95 ms</th><th>p99 ms</th></tr></thead><tbody>${rows}</tbody></table>`
}
<p class="muted">Percentiles are the upper bounds of latency buckets 25% wide, from arrival at the edge to the answer's head.</p>`,
  )
}

/** Policy: the document to edit, what each part does, and the versions. */
export function policyPage(d: {
  readonly viewer: Viewer
  readonly tunnel: TunnelView
  readonly view: PolicyView
  readonly versions: readonly { version: number; changedAt: string; changedBy: string }[]
  /** The text to show in the editor (the current policy, or what was submitted with an error). */
  readonly draft?: string
  /** The version the draft was edited from (default: the current one), sent back with it. */
  readonly draftVersion?: number
  readonly notices?: readonly Notice[]
}): SafeHtml {
  const t = d.tunnel
  const text = d.draft ?? JSON.stringify(d.view.document, null, 2)
  const from = d.draftVersion ?? d.view.version
  const zk = d.view.document.zero_knowledge === true
  return page(
    { title: `${t.name ?? t.subdomain}: policy`, viewer: d.viewer, notices: d.notices ?? [] },
    html`${tunnelHeading(t)}${tunnelTabs(t, 'policy')}
<form method="post" action="/dashboard/tunnels/${t.id}/policy" class="card" id="policy-form">${csrfField(d.viewer.csrfToken)}
  <input type="hidden" name="version" value="${from}">
  <label for="policy">Policy (JSON)</label>
  <textarea id="policy" name="policy" rows="24" spellcheck="false">${text}</textarea>
  <p class="muted" id="policy-version">Version ${d.view.version}${d.view.updatedAt ? html`, changed ${formatStoredTime(d.view.updatedAt)} by ${d.view.updatedBy}` : ' (the default)'}. Changes apply from the next request.</p>
  <button type="submit">Save policy</button>
</form>
<section class="card" id="policy-help">
  <h2>What it does</h2>
  <ul>
    <li><code>tools.allow</code>, <code>tools.deny</code>: globs (<code>*</code>, <code>?</code>, <code>[abc]</code>, <code>{a,b}</code>) over the tool names agents see. A denied tool is removed from <code>tools/list</code> and a call to it is refused (<code>tool_denied</code>) before it reaches your machine.</li>
    <li><code>rate_limits</code>: <code>{"tool": "search", "limit": 10, "per_seconds": 60}</code> or <code>{"method": "*", …}</code>; over the limit, agents get <code>rate_limited</code> with <code>Retry-After</code>.</li>
    <li><code>redaction</code>: <code>keys</code> (masked at any depth), <code>patterns</code> (RE2), <code>detect_secrets</code> (cloud and API keys, tokens, private keys). Always applied to what Burrow stores and shows; with <code>forwarded: true</code> also to what agents receive.</li>
    <li><code>zero_knowledge</code>: store no request or response content, only time, method, tool, status, sizes and latency.${zk ? html` <strong>On for this tunnel.</strong>` : ''} The edge still reads each request in memory to count it and apply this policy; nothing of it is kept.</li>
    <li><code>rug_pull.mode</code>: <code>off</code>, <code>alert</code> or <code>hold</code> (see the Tools tab).</li>
  </ul>
</section>
<h2>Versions</h2>
${
  d.versions.length === 0
    ? html`<p class="card muted">No changes yet: the tunnel has the default policy.</p>`
    : html`<table id="policy-versions"><thead><tr><th>Version</th><th>Changed</th><th>By</th></tr></thead><tbody>${d.versions.map(
        (v) =>
          html`<tr><td>${v.version}</td><td>${formatStoredTime(v.changedAt)}</td><td>${v.changedBy}</td></tr>`,
      )}</tbody></table>`
}`,
  )
}
