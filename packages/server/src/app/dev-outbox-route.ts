/**
 * `GET /dev/outbox`: the mail burrowd would have sent, when no SMTP server is configured, as the
 * dev checkout stands in for the payment provider. Reset links open accounts, so the page is only
 * served to a browser on the burrowd machine: the client address (behind trusted proxies) must
 * be loopback and the Host a loopback name; anyone else gets the same 404 as any unknown path.
 * Its menu is the one the browser's session calls for, as on every other page.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { ClientAddresses } from '../http/client-addresses.js'
import { html, type SafeHtml } from '../http/html.js'
import { sendHtml } from '../http/responses.js'
import { sendRefusal } from '../http/send-refusal.js'
import type { DevOutbox } from '../mail/dev-outbox.js'
import type { Mount } from './app.js'
import { page, type Viewer } from './dashboard/layout.js'

/** Where the outbox is served. */
export const DEV_OUTBOX_PATH = '/dev/outbox'

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]'])

/** Who is signed in with a request's session, for the page's menu (null: no one). */
export type ViewerOf = (req: IncomingMessage) => Promise<Viewer | null>

/** The mount serving `outbox` to loopback browsers. */
export function devOutboxMount(
  outbox: DevOutbox,
  addresses: ClientAddresses,
  https: boolean,
  viewerOf: ViewerOf,
): Mount {
  return {
    matches: (url) => url.split('?', 1)[0] === DEV_OUTBOX_PATH,
    handle: (req, res) => serve(req, res, outbox, addresses, https, viewerOf),
  }
}

async function serve(
  req: IncomingMessage,
  res: ServerResponse,
  outbox: DevOutbox,
  addresses: ClientAddresses,
  https: boolean,
  viewerOf: ViewerOf,
): Promise<void> {
  if (!servesOutboxTo(req, addresses)) {
    sendRefusal(res, 'not_found', 'not found', `nothing is served at ${DEV_OUTBOX_PATH}`)
    return
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    sendRefusal(res, 'method_not_allowed', 'method not allowed', `${DEV_OUTBOX_PATH} accepts GET`, {
      headers: { allow: 'GET, HEAD' },
    })
    return
  }
  const viewer = await viewerOf(req)
  const entries = outbox.entries()
  const items = entries.map(
    (m) => html`<article class="card mail">
  <p class="muted">${m.at.toISOString()} · from ${m.from} · to <strong class="mail-to">${m.to}</strong></p>
  <h2>${m.subject}</h2>
  <pre class="mail-text">${linkify(m.text)}</pre>
</article>`,
  )
  sendHtml(
    res,
    200,
    page(
      { title: 'Dev outbox', viewer },
      html`<h1>Dev outbox</h1>
<p class="muted">No SMTP server is configured (<code>BURROW_SMTP_URL</code>), so the newest mail
burrowd would have sent is shown here, to browsers on this machine only. Newest first.</p>
${entries.length === 0 ? html`<p id="outbox-empty">No mail yet.</p>` : items}`,
    ),
    { https },
  )
}

/**
 * The outbox is served to this request: its client is this machine, reached by a loopback name.
 * Pages that say mail was sent point such a browser to the outbox.
 */
export function servesOutboxTo(req: IncomingMessage, addresses: ClientAddresses): boolean {
  const address = addresses.of(req)
  const loopback = address === '::1' || address.startsWith('127.')
  const host = (req.headers.host ?? '').toLowerCase().replace(/:\d+$/, '')
  return loopback && LOOPBACK_HOSTS.has(host)
}

/** `text` with its http(s) URLs as links, everything escaped. */
function linkify(text: string): SafeHtml[] {
  const parts: SafeHtml[] = []
  let last = 0
  for (const match of text.matchAll(/https?:\/\/[^\s<>"]+/g)) {
    parts.push(html`${text.slice(last, match.index)}`)
    parts.push(html`<a href="${match[0]}">${match[0]}</a>`)
    last = match.index + match[0].length
  }
  parts.push(html`${text.slice(last)}`)
  return parts
}
