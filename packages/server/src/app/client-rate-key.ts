/**
 * Which client a request counts against for per-client rate limits. The peer address, except
 * when the peer is on loopback (a TLS terminator such as Caddy on the same host): then the
 * address that proxy appended last to `X-Forwarded-For`. IPv6 clients are grouped by /64, the
 * block one host usually gets, so rotating addresses inside it does not buy more requests.
 */
import type { IncomingMessage } from 'node:http'
import { isIP } from 'node:net'

/** The rate-limit key of the client that sent `req`, e.g. `203.0.113.7` or `2001:db8:0:1::/64`. */
export function clientRateKey(req: IncomingMessage): string {
  const peer = unmapped(req.socket.remoteAddress ?? '')
  let address = peer
  if (isLoopback(peer)) {
    const header = req.headers['x-forwarded-for']
    const forwarded = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',')
    const last = unmapped(forwarded[forwarded.length - 1]?.trim() ?? '')
    if (isIP(last) !== 0) address = last
  }
  return isIP(address) === 6 ? ipv6Prefix64(address) : address
}

function unmapped(address: string): string {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  return m ? m[1]! : address
}

function isLoopback(address: string): boolean {
  return address === '::1' || /^127\./.test(address)
}

/** The first four groups of an IPv6 address, written `a:b:c:d::/64`. */
function ipv6Prefix64(address: string): string {
  const plain = address.split('%', 1)[0]!.toLowerCase()
  const [head = '', tail] = plain.split('::', 2)
  const left = head === '' ? [] : head.split(':')
  const right = tail === undefined || tail === '' ? [] : tail.split(':')
  const missing = Math.max(0, 8 - left.length - right.length)
  const groups = [...left, ...Array<string>(missing).fill('0'), ...right]
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`
}
