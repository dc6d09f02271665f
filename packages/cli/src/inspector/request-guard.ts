/**
 * The inspector's front door. Every request, whatever its route, passes three checks in order:
 * the Host header must name the inspector itself (a DNS-rebinding page has its own host name in
 * Host), an Origin header when present must be the inspector's own origin, and the token must come
 * with it (`?token=`, `Authorization: Bearer`, or the cookie set after a `?token=` visit).
 * Without the token nothing is served, not even whether a route exists.
 */
import type { IncomingMessage } from 'node:http'
import { tokenMatches } from './inspector-token.js'

/** What the guard knows about the inspector. */
export interface GuardOptions {
  readonly token: string
  /** Lower-case `host:port` values accepted in the Host header. */
  readonly allowedHosts: ReadonlySet<string>
  /** Name of the cookie that carries the token. */
  readonly cookieName: string
}

/** The guard's decision. `viaQuery` means the token came in the URL (set the cookie). */
export type GuardVerdict =
  | { readonly ok: true; readonly viaQuery: boolean }
  | { readonly ok: false; readonly status: 401 | 403; readonly reason: string }

/** The Host values that reach the inspector on `port`: loopback names and the bind host. */
export function allowedHostsFor(bindHost: string, port: number): Set<string> {
  const bare = bindHost.toLowerCase().replace(/^\[|\]$/g, '')
  const hosts = ['127.0.0.1', 'localhost', '[::1]', bare.includes(':') ? `[${bare}]` : bare]
  return new Set(hosts.map((h) => `${h}:${port}`))
}

/** The cookie name for an inspector on `port` (cookies ignore ports; two inspectors can coexist). */
export function cookieNameFor(port: number): string {
  return `burrow_inspector_${port}`
}

/** Check `req` (its URL already parsed as `url`). */
export function checkRequest(req: IncomingMessage, url: URL, options: GuardOptions): GuardVerdict {
  const host = (req.headers.host ?? '').toLowerCase()
  if (!options.allowedHosts.has(host)) {
    return { ok: false, status: 403, reason: `Host "${host}" is not this inspector's address` }
  }
  const origin = req.headers.origin
  if (origin !== undefined && origin.toLowerCase() !== `http://${host}`) {
    return { ok: false, status: 403, reason: 'requests from other origins are refused' }
  }
  // A cross-site request never carries the SameSite cookie, but a same-site one (another port
  // on localhost) does: state-changing requests must come from this very origin.
  const site = req.headers['sec-fetch-site']
  if (req.method !== 'GET' && req.method !== 'HEAD' && site !== undefined) {
    if (site !== 'same-origin') {
      return { ok: false, status: 403, reason: 'requests from other sites are refused' }
    }
  }
  const query = url.searchParams.get('token')
  if (query !== null && tokenMatches(options.token, query)) return { ok: true, viaQuery: true }
  const auth = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1]
  if (tokenMatches(options.token, auth)) return { ok: true, viaQuery: false }
  if (tokenMatches(options.token, cookieValue(req.headers.cookie, options.cookieName))) {
    return { ok: true, viaQuery: false }
  }
  return {
    ok: false,
    status: 401,
    reason: 'this inspector needs its token: open the URL that "burrow up" printed',
  }
}

/** The `Set-Cookie` value that stores the token for later requests from the page. */
export function tokenCookie(name: string, token: string): string {
  return `${name}=${token}; Path=/; HttpOnly; SameSite=Strict`
}

function cookieValue(header: string | undefined, name: string): string | null {
  if (!header) return null
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim()
  }
  return null
}
