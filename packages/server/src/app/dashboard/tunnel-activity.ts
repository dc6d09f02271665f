/**
 * The "This month" and "Recent calls" sections of a tunnel's overview page: its tool calls and
 * bandwidth against the plan's monthly limits (read live; from the meters' last snapshot, which
 * may lag a minute, when the live counters cannot be read), and its newest calls with a link to the full traffic tab.
 */
import { html, type SafeHtml } from '../../http/html.js'
import { PLANS, type PlanId } from '../../plans.js'
import type { MetersView } from '../billing-view.js'
import type { CallView } from '../../governance/call-log.js'
import { formatBytes, formatCount, formatDateTime } from './format.js'
import { shownName } from './shown-name.js'

/** Calls listed on the overview. */
export const RECENT_CALLS = 10

/** The two sections for tunnel `tunnelId` of an account on `plan`. */
export function tunnelActivity(
  tunnelId: string,
  plan: PlanId,
  meters: MetersView,
  calls: readonly CallView[],
): SafeHtml {
  const limits = PLANS[plan]
  const meter = meters.tunnels.find((m) => m.tunnelId === tunnelId)
  const toolCalls = meter?.toolCalls ?? 0
  const bytes = meter?.bandwidthBytes ?? 0
  const rows = calls.map(
    (c) => html`<tr>
  <td>${formatDateTime(new Date(c.at))}</td>
  <td><a href="/dashboard/tunnels/${tunnelId}/traffic/${c.id}">${shownName(c.method)}</a></td>
  <td>${shownName(c.tool)}</td>
  <td>${c.policyCode ?? c.outcome} (${c.status})</td>
  <td>${formatCount(c.durationMs)} ms</td>
</tr>`,
  )
  return html`<section class="card" id="usage">
  <h2>This month</h2>
  <div class="usage-rows">
    <span>Tool calls</span><span id="usage-tool-calls">${formatCount(toolCalls)} of ${formatCount(limits.toolCallsPerMonth)}</span>
    <span>Data transfer</span><span id="usage-bandwidth">${formatBytes(bytes)} of ${formatBytes(limits.bandwidthBytesPerMonth)}</span>
  </div>
  <p class="muted" id="usage-note">${meters.live ? 'Live counts; counters' : meters.takenAt ? `As of ${formatDateTime(meters.takenAt)}; counters` : 'Counters'} reset ${formatDateTime(meters.resetsAt)}. <a href="/dashboard/billing">All meters</a></p>
</section>
<section class="card" id="recent-calls">
  <h2>Recent calls</h2>
  ${
    calls.length === 0
      ? html`<p class="muted">No calls yet. Once an agent calls this tunnel, its newest calls show here.</p>`
      : html`<table>
    <thead><tr><th>When</th><th>Method</th><th>Tool</th><th>Outcome</th><th>Time</th></tr></thead>
    <tbody>${rows}</tbody>
  </table>`
  }
  <p><a href="/dashboard/tunnels/${tunnelId}/traffic">All traffic</a></p>
</section>`
}
