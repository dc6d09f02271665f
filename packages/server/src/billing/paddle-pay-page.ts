/**
 * `GET /billing/pay`: the page Paddle's checkout links point at. Paddle makes every checkout
 * link from the seller's default payment link plus `?_ptxn=txn_…`, and that page must load
 * Paddle.js, which opens the checkout for the transaction (also for "update payment method"
 * links Paddle sends after a failed payment). Set the default payment link in Paddle to
 * `https://<service host>/billing/pay`. The card is entered in Paddle's frame, never here.
 */

import type { IncomingMessage, ServerResponse } from 'node:http'
import { html } from '../http/html.js'
import type { SafeHtml } from '../http/html.js'

/** Where burrowd serves the page. */
export const PADDLE_PAY_PATH = '/billing/pay'

/** Paddle.js, version 2, from Paddle's CDN (Paddle requires it to be loaded from there). */
const PADDLE_JS = 'https://cdn.paddle.com/paddle/v2/paddle.js'

/**
 * Serve the page. `clientToken` is Paddle's client-side token (`live_…`, or `test_…` for the
 * sandbox); without one the page says checkout is not set up (503). A `success_url` query value
 * is passed to Paddle.js only when it points back at this host, so the page is no open redirect.
 */
export function servePaddlePayPage(
  req: IncomingMessage,
  res: ServerResponse,
  clientToken: string | null,
): void {
  const url = new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`)
  if (clientToken === null) {
    return send(
      res,
      503,
      page(html`<h1>Checkout is not set up</h1>
        <p>This service has no Paddle client-side token (BURROW_PADDLE_CLIENT_TOKEN).</p>`),
    )
  }
  if (!/^txn_[A-Za-z0-9]+$/.test(url.searchParams.get('_ptxn') ?? '')) {
    return send(res, 400, page(html`<h1>No checkout</h1><p>This link names no transaction.</p>`))
  }
  const success = sameHost(url.searchParams.get('success_url'), url)
  send(
    res,
    200,
    page(html`<p>Opening secure checkout…</p>
      <noscript>Checkout runs in your browser: please enable JavaScript.</noscript>
      <div
        id="burrow-checkout"
        data-token="${clientToken}"
        data-sandbox="${clientToken.startsWith('test_') ? 'yes' : ''}"
        data-success-url="${success ?? ''}"
      ></div>
      <script src="${PADDLE_JS}"></script>
      <script>
        // Paddle.js opens the checkout for the _ptxn in this page's address by itself.
        const el = document.getElementById('burrow-checkout')
        if (el.dataset.sandbox) Paddle.Environment.set('sandbox')
        const settings = el.dataset.successUrl ? { successUrl: el.dataset.successUrl } : {}
        Paddle.Initialize({ token: el.dataset.token, checkout: { settings } })
      </script>`),
  )
}

/** `value` as an absolute URL when it is on the page's own host, else null. */
function sameHost(value: string | null, pageUrl: URL): string | null {
  if (value === null || value.length > 2048) return null
  try {
    const target = new URL(value, pageUrl)
    const web = target.protocol === 'https:' || target.protocol === 'http:'
    return web && target.host === pageUrl.host ? target.href : null
  } catch {
    return null
  }
}

function page(body: SafeHtml): SafeHtml {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>Checkout</title>
      </head>
      <body>
        ${body}
      </body>
    </html>`
}

function send(res: ServerResponse, status: number, body: SafeHtml): void {
  const text = body.toString()
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    // Paddle.js runs here, on the dashboard's origin, with its own script and frames, so no
    // script policy; but like every other page here it may not be framed (clickjacking).
    'content-security-policy': "frame-ancestors 'none'",
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
  })
  res.end(text)
}
