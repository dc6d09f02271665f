/**
 * The dashboard's billing page (`GET /dashboard/billing`): the plan and its state, the three
 * meters (data transfer, tool calls, tunnel allowance) read live, the plan cards
 * with upgrade, cycle switch and cancel, and the billing history.
 */
import { PLANS, type Plan } from '../../plans.js'
import type { BillingView } from '../billing-view.js'
import { formatBytes, formatCount, formatDate, formatDateTime, formatUsd } from './format.js'
import { html, type SafeHtml } from '../../http/html.js'
import { csrfField, page, type Notice, type Viewer } from './layout.js'
import { planCards } from './plan-cards.js'

/** A meter bar: green under 80%, amber from 80% (when quota.warning fires), red at 100%. */
function meterBar(used: number, limit: number): SafeHtml {
  const ratio = limit > 0 ? used / limit : 1
  const cls = ratio >= 1 ? 'meter full' : ratio >= 0.8 ? 'meter warn' : 'meter'
  return html`<progress class="${cls}" max="${limit}" value="${Math.min(used, limit)}"></progress>`
}

function planSummary(b: BillingView, plan: Plan): SafeHtml {
  const cycle = b.cycle ? `, ${b.cycle}` : ''
  switch (b.state) {
    case 'free':
      return html`<p id="plan-state" data-state="free"><strong>${plan.name}</strong></p>`
    case 'active':
      return html`<p id="plan-state" data-state="active"><strong>${plan.name}</strong>${cycle}${b.renewsAt ? html`, renews ${formatDate(b.renewsAt)}` : ''}</p>`
    case 'cancels':
      return html`<p id="plan-state" data-state="cancels"><strong>${plan.name}</strong>${cycle}, cancels on ${b.endsAt ? formatDate(b.endsAt) : 'the end of the period'}, then Free</p>`
    case 'payment_failed':
      return html`<p id="plan-state" data-state="payment_failed"><strong>${plan.name}</strong>${cycle}, payment failed</p>`
  }
}

const HISTORY_TEXT: Readonly<Record<BillingView['history'][number]['kind'], string>> = {
  subscribed: 'Subscribed',
  payment_failed: 'Payment failed',
  paused: 'Subscription paused',
  resumed: 'Subscription resumed',
  canceled: 'Subscription ended',
  chargeback: 'Payment disputed (chargeback): plan ended, subscription canceled',
  chargeback_reversed: 'Chargeback reversed by the bank',
}

/** What the payment provider reported, newest first. */
function billingHistory(b: BillingView): SafeHtml {
  if (b.history.length === 0) return html``
  const rows = b.history.map(
    (h) =>
      html`<tr data-event="${h.kind}"><td>${formatDateTime(h.at)}</td><td>${HISTORY_TEXT[h.kind]}</td></tr>`,
  )
  return html`<section class="card" id="billing-history">
  <h2>Billing history</h2>
  <table><thead><tr><th>When</th><th>What happened</th></tr></thead><tbody>${rows}</tbody></table>
  <p class="muted">Receipts and invoices come from the payment provider by email.</p>
</section>`
}

/** The billing page. `canSwitch` hides buttons the provider cannot do. */
export function billingPage(
  viewer: Viewer,
  b: BillingView,
  notices: readonly Notice[] = [],
): SafeHtml {
  const plan = PLANS[b.plan]
  const csrf = csrfField(viewer.csrfToken)
  const all: Notice[] = [...notices]
  if (b.state === 'payment_failed') {
    all.push({
      kind: 'error',
      text: `Payment failed: your last payment did not go through. ${plan.name} limits stay until ${b.endsAt ? formatDate(b.endsAt) : 'the end of the period'}; update your payment method from the payment provider's receipt email to keep them.`,
    })
  }
  if (b.chargedBackAt !== null && b.state === 'free') {
    all.push({
      kind: 'warn',
      text: `A payment was disputed with your bank (chargeback) on ${formatDate(b.chargedBackAt)}: the paid plan ended and the subscription was canceled. You can subscribe again at any time.`,
    })
  }
  const action = (p: Plan): SafeHtml | null => {
    if (p.id === 'free') return null
    // A plan from a subscription the account did not check out (a stranger's, maybe) is no
    // reason to refuse the account's own checkout, which replaces it.
    if (b.state !== 'free' && b.foreign !== true) {
      // Between paid plans: the provider's subscription update, previewed first.
      if (p.id === b.plan || !b.cycle) return null
      const up = p.priceMonthlyUsd > plan.priceMonthlyUsd
      return html`<form method="get" action="/dashboard/billing/change"><input type="hidden" name="plan" value="${p.id}" />
  <button type="submit"${up ? '' : html` class="secondary"`}>${up ? 'Upgrade' : 'Downgrade'} to ${p.name}</button>
  <span class="muted">prorated for the rest of this period</span>
</form>`
    }
    return html`<form method="post" action="/dashboard/billing/checkout">${csrf}<input type="hidden" name="plan" value="${p.id}" />
  <button type="submit" name="cycle" value="monthly">Upgrade: ${formatUsd(p.priceMonthlyUsd)}/month</button>
  <button type="submit" name="cycle" value="annual" class="secondary">${formatUsd(p.priceAnnualUsd)}/year</button>
</form>`
  }
  const manage =
    b.state === 'active' || b.state === 'payment_failed'
      ? html`<div>
  ${
    b.cycle
      ? html`<form method="post" action="/dashboard/billing/cycle" class="inline">${csrf}<input type="hidden" name="cycle" value="${b.cycle === 'monthly' ? 'annual' : 'monthly'}" />
  <button type="submit" class="secondary">Switch to ${b.cycle === 'monthly' ? `annual (${formatUsd(plan.priceAnnualUsd)}/year)` : `monthly (${formatUsd(plan.priceMonthlyUsd)}/month)`}</button></form>`
      : ''
  }
  <form method="post" action="/dashboard/billing/cancel" class="inline" data-confirm="Cancel your subscription? Paid limits stay until the end of the period.">${csrf}
  <button type="submit" class="danger">Cancel subscription</button></form>
</div>`
      : ''
  const m = b.meters
  const rows = m.tunnels.map(
    (t) => html`<tr data-tunnel="${t.tunnelId}">
  <td>${t.name}</td>
  <td data-meter="bandwidth" data-used="${t.bandwidthBytes}" data-limit="${plan.bandwidthBytesPerMonth}">${formatBytes(t.bandwidthBytes)} of ${formatBytes(plan.bandwidthBytesPerMonth)}${meterBar(t.bandwidthBytes, plan.bandwidthBytesPerMonth)}</td>
  <td data-meter="tool_calls" data-used="${t.toolCalls}" data-limit="${plan.toolCallsPerMonth}">${formatCount(t.toolCalls)} of ${formatCount(plan.toolCallsPerMonth)}${meterBar(t.toolCalls, plan.toolCallsPerMonth)}</td>
</tr>`,
  )
  return page(
    { title: 'Billing', viewer, notices: all },
    html`<h1>Billing</h1>
<section class="card" id="current-plan">
  <h2>Current plan</h2>
  ${planSummary(b, plan)}
  ${manage}
</section>
<section class="card" id="meters">
  <h2>Usage this month</h2>
  <p data-meter="tunnels" data-used="${b.tunnelCount}" data-limit="${plan.tunnels}">Tunnel allowance: <strong>${b.tunnelCount} of ${plan.tunnels}</strong> tunnels</p>
  ${m.tunnels.length > 0 ? html`<table><thead><tr><th>Tunnel</th><th>Data transfer</th><th>Tool calls</th></tr></thead><tbody>${rows}</tbody></table>` : html`<p class="muted">No tunnels yet.</p>`}
  <p class="muted">Limits are per tunnel and reset on <span id="resets-at">${formatDateTime(m.resetsAt)}</span>.
  ${m.live ? html`<span id="meters-live">Live counts, as of this page.</span>` : m.takenAt ? html`Meters from the snapshot taken <span id="snapshot-at">${formatDateTime(m.takenAt)}</span>; they may lag live usage by a few minutes.` : html`<span id="snapshot-at">No usage snapshot has been taken yet this month.</span>`}</p>
</section>
<h2>Plans</h2>
${planCards({ current: b.plan, action })}
${billingHistory(b)}`,
  )
}
