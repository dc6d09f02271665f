/**
 * The dev provider's hosted checkout page: what is being bought (plan, cycle, price) and one
 * "Pay" button, under a label that says no money moves. No card fields: in production the
 * merchant of record's own page takes the card, and card data never reaches burrowd.
 */

import { PLANS } from '@burrow/protocol'
import { html, raw } from '../web/html.js'
import type { SafeHtml } from '../web/html.js'
import type { StandInPrice } from './stand-in-entities.js'

/** What the checkout page shows and where its form posts. */
export interface CheckoutPageInput {
  readonly transactionId: string
  readonly price: StandInPrice
  /** The customer's email, when the transaction names a customer. */
  readonly email: string | null
  /** Where the Pay form posts. */
  readonly payAction: string
  /** Carried through the form to the redirect after payment. */
  readonly successUrl: string | null
}

const STYLE = `
body { font: 16px/1.5 system-ui, sans-serif; max-width: 28rem; margin: 3rem auto; padding: 0 1rem; color: #1d1d1f; }
.dev { background: #fff4ce; border: 1px solid #e0b400; border-radius: 6px; padding: .5rem .75rem; font-weight: 600; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; }
dt { color: #666; }
button { font: inherit; padding: .6rem 1.4rem; border: 0; border-radius: 6px; background: #1f6feb; color: #fff; cursor: pointer; }
`

/** The checkout page for one transaction. */
export function checkoutPage(input: CheckoutPageInput): SafeHtml {
  const plan = PLANS[input.price.plan]
  const per = input.price.cycle === 'monthly' ? 'month' : 'year'
  const amount = `$${(input.price.amountCents / 100).toFixed(2)} per ${per}`
  return page(
    `Checkout: Burrow ${plan.name}`,
    html`<p class="dev" role="note">Development checkout: no money moves.</p>
      <h1>Burrow ${plan.name}</h1>
      <dl>
        <dt>Plan</dt>
        <dd>${plan.name}</dd>
        <dt>Billing</dt>
        <dd>${input.price.cycle === 'monthly' ? 'Monthly' : 'Annual'}</dd>
        <dt>Price</dt>
        <dd>${amount}</dd>
        ${input.email === null ? '' : html`<dt>Email</dt><dd>${input.email}</dd>`}
      </dl>
      <form method="post" action="${input.payAction}">
        <input type="hidden" name="_ptxn" value="${input.transactionId}" />
        ${
          input.successUrl === null
            ? ''
            : html`<input type="hidden" name="success_url" value="${input.successUrl}" />`
        }
        <button type="submit">Pay ${amount}</button>
      </form>`,
  )
}

/** A page with a heading and one sentence (paid, not found, already paid). */
export function messagePage(title: string, message: string): SafeHtml {
  return page(
    title,
    html`<p class="dev" role="note">Development checkout: no money moves.</p>
      <h1>${title}</h1>
      <p>${message}</p>`,
  )
}

function page(title: string, body: SafeHtml): SafeHtml {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title}</title>
        <style>
          ${raw(STYLE)}
        </style>
      </head>
      <body>
        ${body}
      </body>
    </html>`
}
