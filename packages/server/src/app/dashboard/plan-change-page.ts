/**
 * The confirmation page of a change between paid plans (`GET /dashboard/billing/change?plan=`):
 * what the payment provider will charge now, or credit, for the rest of the current period, as
 * it prorates the change, and the price from then on; the button posts the change.
 */
import { html, type SafeHtml } from '../../http/html.js'
import { PLANS } from '../../plans.js'
import type { PlanChangePreview } from '../web-services.js'
import { formatMoney as money, formatUsd } from './format.js'
import { csrfField, page, type Viewer } from './layout.js'

/** The page for `p`. */
export function planChangePage(viewer: Viewer, p: PlanChangePreview): SafeHtml {
  const from = PLANS[p.from]
  const to = PLANS[p.to]
  const price =
    p.cycle === 'monthly'
      ? `${formatUsd(to.priceMonthlyUsd)}/month`
      : `${formatUsd(to.priceAnnualUsd)}/year`
  const upgrade = to.priceMonthlyUsd > from.priceMonthlyUsd
  const now =
    p.action === 'charge'
      ? html`You pay <strong id="change-amount">${money(p.amountCents, p.currency)}</strong> now`
      : html`You get a credit of <strong id="change-amount">${money(p.amountCents, p.currency)}</strong>, used for your next bills`
  return page(
    { title: `Switch to ${to.name}`, viewer },
    html`<h1>Switch from ${from.name} to ${to.name}</h1>
<section class="card" id="plan-change" data-action="${p.action}" data-amount="${p.amountCents}">
  <p>${now}: the payment provider credits the unused part of this period on ${from.name}
  (<span id="change-credit">${money(p.creditCents, p.currency)}</span>) and charges ${to.name} for the
  rest of it (<span id="change-charge">${money(p.chargeCents, p.currency)}</span>).</p>
  <p>${to.name} limits apply at once; from the next renewal you pay ${price}.
  ${upgrade ? '' : html`${to.name} allows ${to.tunnels} tunnels; with more, choose on the Tunnels page which keep serving.`}</p>
  <form method="post" action="/dashboard/billing/change">${csrfField(viewer.csrfToken)}
    <input type="hidden" name="plan" value="${p.to}" />
    <button type="submit">Switch to ${to.name}</button> <a href="/dashboard/billing">Keep ${from.name}</a>
  </form>
</section>`,
  )
}
