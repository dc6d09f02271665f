/**
 * The inspector's front door. Every request, whatever its route, passes the same checks in
 * order: the Host header must name the inspector itself (a DNS-rebinding page has its own host
 * name in Host), an Origin header when present must be the inspector's own origin, a request that
 * changes something must come from the inspector's own page, and everything but the page's static
 * shell needs the token as `Authorization: Bearer`. The token is never a cookie: browsers send
 * a cookie for 127.0.0.1 to every port of it, so a page another local user serves would get it.
 * Without the token no data is served, not even whether an API route exists.
 */
import type { IncomingMessage } from 'node:http'
import { tokenMatches } from './inspector-token.js'

/** What the guard knows about the inspector. */
export interface GuardOptions {
  readonly token: string
  /** Lower-case `host:port` values accepted in the Host header. */
  readonly allowedHosts: ReadonlySet<string>
}

/** The guard's decision. */
export type GuardVerdict =
  | { readonly ok: true }
  | { readonly ok: false; readonly status: 401 | 403; readonly reason: string }

/**
 * The Host values that name the inspector listening on `address` (as the socket reports it) and
 * `port`, asked for as `bindHost`: that address, the bind host as given (a name the user chose),
 * and the loopback names a browser reaches that very socket by: `localhost` for 127.0.0.1, ::1
 * or every address, and 127.0.0.1 and [::1] for every address. Not another loopback address:
 * another program may listen on the same port there (another project's inspector), and a program
 * on the port this tab used would pass the tab's requests, Host and all, to an inspector on
 * another address that answered for the tab's Host. With one fixed token for both, that
 * inspector's proof (token-proof.ts) convinced the tab, which sent the program its token.
 */
export function allowedHostsFor(bindHost: string, address: string, port: number): Set<string> {
  const bare = (host: string): string => host.toLowerCase().replace(/^\[|\]$/g, '')
  const bound = bare(address)
  const hosts = [bound, bare(bindHost), ...(REACHED_AS[bound] ?? [])]
  return new Set(hosts.map((h) => `${h.includes(':') ? `[${h}]` : h}:${port}`))
}

/** The other names of a socket listening on a loopback address, or on every address. */
const REACHED_AS: Readonly<Record<string, readonly string[]>> = {
  '127.0.0.1': ['localhost'],
  '::ffff:127.0.0.1': ['127.0.0.1', 'localhost'],
  '::1': ['localhost'],
  '0.0.0.0': ['127.0.0.1', 'localhost'],
  '::': ['127.0.0.1', '::1', 'localhost'],
}

/**
 * Check `req`. `shell` is true for a GET of the page's static shell (its HTML, scripts and
 * stylesheet) or of the token proof (`token-proof.ts`), which hold no data and are served without
 * the token: the token lives in the URL's fragment, which never reaches the server, and the
 * page's script sends it with each call, once the server proved it holds it.
 */
export function checkRequest(
  req: IncomingMessage,
  options: GuardOptions,
  shell: boolean,
): GuardVerdict {
  const host = (req.headers.host ?? '').toLowerCase()
  if (!options.allowedHosts.has(host)) {
    return { ok: false, status: 403, reason: `Host "${host}" is not this inspector's address` }
  }
  const origin = req.headers.origin
  if (origin !== undefined && origin.toLowerCase() !== `http://${host}`) {
    return { ok: false, status: 403, reason: 'requests from other origins are refused' }
  }
  // Another port of localhost is the same site but not the same origin: state-changing requests
  // must come from this very origin.
  const site = req.headers['sec-fetch-site']
  if (req.method !== 'GET' && req.method !== 'HEAD' && site !== undefined) {
    if (site !== 'same-origin') {
      return { ok: false, status: 403, reason: 'requests from other sites are refused' }
    }
  }
  if (shell) return { ok: true }
  const auth = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1]
  if (tokenMatches(options.token, auth)) return { ok: true }
  return {
    ok: false,
    status: 401,
    reason: 'this inspector needs its token: open the URL that "burrow up" printed',
  }
}
