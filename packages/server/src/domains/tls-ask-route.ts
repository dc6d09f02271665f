/**
 * The question Caddy's on-demand TLS asks before it gets a certificate for a name it has never
 * seen: `GET /internal/tls-ask?domain=<name>`, answered `200` only for a verified custom domain
 * whose account's plan allows it now, `404` otherwise. Answered only on a connection from this
 * machine, to a Host that is an address or `localhost`, and not relayed by a proxy (no
 * `X-Forwarded-For`): a request that came through the TLS terminator from the internet is not
 * ours, and the app answers it (404).
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { isIP } from 'node:net'
import { sendRefusal } from '../http/send-refusal.js'
import type { CustomDomains } from './custom-domains.js'

/** The path Caddy's `on_demand_tls { ask … }` names. */
export const TLS_ASK_PATH = '/internal/tls-ask'

/** True when `req` is the TLS question from this machine (else not ours). */
export function isTlsAsk(req: IncomingMessage): boolean {
  const path = (req.url ?? '/').split('?', 1)[0]
  return (
    path === TLS_ASK_PATH &&
    fromThisMachine(req) &&
    hostIsLocal(req.headers.host) &&
    req.headers['x-forwarded-for'] === undefined &&
    req.headers.forwarded === undefined
  )
}

/** Answer a request `isTlsAsk` accepted. */
export async function answerTlsAsk(
  domains: CustomDomains,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    return sendRefusal(
      res,
      'method_not_allowed',
      'method not allowed',
      `${TLS_ASK_PATH} accepts GET`,
      {
        headers: { allow: 'GET' },
      },
    )
  }
  const url = new URL(req.url ?? '/', 'http://ask.invalid')
  const names = url.searchParams.getAll('domain')
  const domain = names.length === 1 ? (names[0] ?? '') : ''
  const yes = domain.length <= 253 && domain !== '' && (await domains.mayIssue(domain))
  const body = yes ? 'yes\n' : 'no\n'
  res.writeHead(yes ? 200 : 404, {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
  })
  res.end(req.method === 'HEAD' ? undefined : body)
}

/** A loopback connection, or one from an address of this machine to itself. */
function fromThisMachine(req: IncomingMessage): boolean {
  const remote = req.socket.remoteAddress ?? ''
  return remote === '::1' || /^(::ffff:)?127\./.test(remote) || remote === req.socket.localAddress
}

/** `127.0.0.1:7100`, `[::1]:7100`, `localhost:7100`: not a name a public request carries. */
function hostIsLocal(host: string | undefined): boolean {
  if (host === undefined) return false
  const name = host.startsWith('[') ? host.slice(1, host.indexOf(']')) : host.replace(/:\d+$/, '')
  return name.toLowerCase() === 'localhost' || isIP(name) !== 0
}
