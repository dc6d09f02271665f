/**
 * The dev provider's hosted checkout: a page showing what is being bought (plan, cycle, price)
 * and one "Pay" button, under a label that says no money moves, and the form it posts, which
 * pays the transaction and sends the browser to the success URL. No card fields: in production
 * the merchant of record's own page takes the card, and card data never reaches burrowd.
 */

import type { IncomingMessage, ServerResponse } from 'node:http'
import { PLANS } from '../plans.js'
import { readBody } from '../http/read-body.js'
import { html, raw } from '../http/html.js'
import type { SafeHtml } from '../http/html.js'
import type { PaddleStandIn } from './paddle-stand-in.js'
import type { StandInPrice } from './stand-in-entities.js'

const FORM_LIMIT = 8 * 1024

/** `GET /checkout?_ptxn=…[&success_url=…]`. */
export function serveCheckoutPage(
  standIn: PaddleStandIn,
  req: IncomingMessage,
  url: URL,
  res: ServerResponse,
): void {
  const txn = standIn.transactions.get(url.searchParams.get('_ptxn') ?? '')
  if (txn === undefined) {
    return sendHtml(res, 404, messagePage('Checkout not found', 'This link names no transaction.'))
  }
  if (txn.status !== 'draft') return sendHtml(res, 409, closedPage(txn.status))
  const customer = txn.customerId === null ? undefined : standIn.customers.get(txn.customerId)
  sendHtml(
    res,
    200,
    checkoutPage({
      transactionId: txn.id,
      price: txn.price,
      email: customer?.email ?? null,
      payAction: `${standIn.prefix}/checkout/pay`,
      successUrl: returnUrl(url.searchParams.get('success_url'), req, standIn.returnOrigins),
    }),
  )
}

/**
 * `POST /checkout/pay` (form fields `_ptxn`, `success_url`): pay, then 303 to the success URL
 * (or `fallbackUrl`), or a "payment complete" page when there is neither.
 */
export async function servePayForm(
  standIn: PaddleStandIn,
  req: IncomingMessage,
  res: ServerResponse,
  fallbackUrl: string | null,
): Promise<void> {
  const body = await readBody(req, FORM_LIMIT)
  if (body === 'aborted') return
  if (body === 'too_large') {
    return sendHtml(res, 413, messagePage('Too large', 'The form is too large.'))
  }
  const form = new URLSearchParams(body.toString('utf8'))
  const txn = standIn.transactions.get(form.get('_ptxn') ?? '')
  if (txn === undefined) {
    return sendHtml(res, 404, messagePage('Checkout not found', 'This form names no transaction.'))
  }
  if (txn.status !== 'draft') return sendHtml(res, 409, closedPage(txn.status))
  await standIn.pay(txn.id)
  const next = returnUrl(form.get('success_url'), req, standIn.returnOrigins) ?? fallbackUrl
  if (next === null) {
    return sendHtml(res, 200, messagePage('Payment complete', 'Your subscription is active.'))
  }
  res.writeHead(303, { location: next, 'cache-control': 'no-store' })
  res.end()
}

/** The answer for a checkout that can no longer be paid: paid already, or voided. */
function closedPage(status: 'completed' | 'canceled'): SafeHtml {
  return status === 'completed'
    ? messagePage('Already paid', 'This checkout has already been paid.')
    : messagePage('Checkout canceled', 'This checkout was replaced; start a new one.')
}

/** What the checkout page shows and where its form posts. */
interface CheckoutPageInput {
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
function checkoutPage(input: CheckoutPageInput): SafeHtml {
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
function messagePage(title: string, message: string): SafeHtml {
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

/** The stand-in's own pages carry their style inline, as a provider's hosted checkout would. */
function sendHtml(res: ServerResponse, status: number, page: SafeHtml): void {
  const text = page.toString()
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
  })
  res.end(text)
}

/**
 * `value` when it is an http(s) URL on the host the checkout itself was reached at (the service,
 * when the stand-in is mounted on burrowd) or on one of `origins`; else null. Anything else
 * would make the checkout an open redirect.
 */
function returnUrl(
  value: string | null,
  req: IncomingMessage,
  origins: readonly string[],
): string | null {
  if (value === null || value.length > 2048) return null
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return null
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null
  const host = (req.headers.host ?? '').toLowerCase()
  if (host !== '' && url.host === host) return url.href
  return origins.includes(url.origin) ? url.href : null
}
