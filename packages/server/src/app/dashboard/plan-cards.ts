/**
 * The three plan cards, rendered from the catalog for the public pricing page and the dashboard's
 * billing page. Every number carries a `data-*` attribute so tests can compare both pages with
 * the catalog.
 */
import { GOVERNANCE_FEATURES, PLAN_IDS, PLANS, type Plan, type PlanId } from '../../plans.js'
import { formatBytes, formatCount, formatRetention, formatUsd } from './format.js'
import { html, type SafeHtml } from '../../http/html.js'

/** What each card offers at its foot (the billing page's buttons); none on the pricing page. */
export type PlanAction = (plan: Plan) => SafeHtml | null

/** The cards, cheapest first; `current` is marked. */
export function planCards(opts: { current?: PlanId; action?: PlanAction } = {}): SafeHtml {
  const cards = PLAN_IDS.map((id) => {
    const plan = PLANS[id]
    const saving = plan.priceMonthlyUsd * 12 - plan.priceAnnualUsd
    return html`<section class="card plan" data-plan="${plan.id}">
  <h3>${plan.name}${opts.current === plan.id ? html` <span class="badge online">current plan</span>` : ''}</h3>
  <p class="muted">${plan.tagline}</p>
  <div><span class="price" data-price-monthly="${plan.priceMonthlyUsd}">${formatUsd(plan.priceMonthlyUsd)}</span> / month</div>
  <div class="muted">or <span data-price-annual="${plan.priceAnnualUsd}">${formatUsd(plan.priceAnnualUsd)}</span> / year${saving > 0 ? html` (save ${formatUsd(saving)})` : ''}</div>
  <ul>
    <li data-quota="bandwidth" data-value="${plan.bandwidthBytesPerMonth}">${formatBytes(plan.bandwidthBytesPerMonth)} data transfer / month per tunnel</li>
    <li data-quota="tool_calls" data-value="${plan.toolCallsPerMonth}">${formatCount(plan.toolCallsPerMonth)} tool calls / month per tunnel</li>
    <li data-quota="tunnels" data-value="${plan.tunnels}">${plan.tunnels} tunnels</li>
    <li data-quota="sessions" data-value="${plan.sessionsPerTunnel}">${plan.sessionsPerTunnel} concurrent sessions per tunnel</li>
    <li data-quota="retention" data-value="${plan.historyRetentionHours}">${formatRetention(plan.historyRetentionHours)} call history</li>
    ${plan.features.map((f) => html`<li>${f}</li>`)}
  </ul>
  ${opts.action?.(plan) ?? ''}
</section>`
  })
  return html`<div class="plans">${cards}</div>
<p class="muted">Governance on every plan, Free included: ${GOVERNANCE_FEATURES.join(', ')}. Prices in US dollars, per account (not per seat); taxes are handled by our payment provider.</p>`
}
