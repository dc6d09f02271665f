/**
 * Headers that describe one connection, not the message (RFC 9110 §7.6.1), plus the ones older
 * proxies and HTTP/2 upgrades use the same way. Whoever relays a message drops them: the edge
 * towards the local server and the agent, `burrow up` towards the tunnel.
 */

/** Lower-case names of hop-by-hop headers. */
export const HOP_BY_HOP_HEADERS: ReadonlySet<string> = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'http2-settings',
])
