/**
 * Which client sent a request. The peer address, unless the peer is a trusted proxy
 * (`BURROW_TRUSTED_PROXIES`: the TLS terminator or load balancer in front of burrowd); then the
 * `X-Forwarded-For` list is read from the right, past every trusted hop, to the first address
 * that is not one. Anyone else's `X-Forwarded-For` is ignored: a client cannot choose its own
 * address. Rate limits key IPv6 clients by /64, the block one host usually gets, so rotating
 * addresses inside it buys nothing.
 */
import type { IncomingMessage } from 'node:http'
import { BlockList, isIP } from 'node:net'

/** The trusted-proxy entries burrowd starts with: the loopback addresses (a proxy on the host). */
export const DEFAULT_TRUSTED_PROXIES: readonly string[] = ['127.0.0.0/8', '::1/128']

/** Tells client addresses, given the proxies to trust. */
export class ClientAddresses {
  readonly #trusted = new BlockList()
  /** Answers of `#isTrusted` for recent addresses (a BlockList check allocates). */
  readonly #known = new Map<string, boolean>()

  /** `trusted`: IP addresses and CIDR blocks (`10.0.0.0/8`, `fd00::/8`, `192.0.2.7`). */
  constructor(trusted: readonly string[] = DEFAULT_TRUSTED_PROXIES) {
    for (const entry of trusted) {
      const parsed = parseProxyEntry(entry)
      if (parsed === null) throw new RangeError(`not an IP address or CIDR block: ${entry}`)
      const [address, prefix, family] = parsed
      if (prefix === null) this.#trusted.addAddress(address, family)
      else this.#trusted.addSubnet(address, prefix, family)
    }
  }

  /** The client's address, e.g. `203.0.113.7` or `2001:db8::5`. */
  of(req: IncomingMessage): string {
    let address = unmapped(req.socket.remoteAddress ?? '')
    if (!this.#isTrusted(address)) return address
    const header = req.headers['x-forwarded-for']
    const hops = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',')
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = unmapped(hops[i]!.trim())
      if (isIP(hop) === 0) break
      address = hop
      if (!this.#isTrusted(hop)) break
    }
    return address
  }

  /** The rate-limit key of the client: its address, or its /64 for IPv6. */
  rateKey(req: IncomingMessage): string {
    return rateKeyOf(this.of(req))
  }

  #isTrusted(address: string): boolean {
    const known = this.#known.get(address)
    if (known !== undefined) return known
    const family = isIP(address)
    const trusted =
      family !== 0 && this.#trusted.check(address.split('%', 1)[0]!, family === 6 ? 'ipv6' : 'ipv4')
    if (this.#known.size >= 1024) this.#known.clear()
    this.#known.set(address, trusted)
    return trusted
  }
}

/** The rate-limit key of a client address (`ClientAddresses.of`): itself, or its /64 for IPv6. */
export function rateKeyOf(address: string): string {
  return isIP(address) === 6 ? ipv6Prefix64(address) : address
}

/** `[address, prefix or null, family]` of a trusted-proxy entry, or null when it is not one. */
export function parseProxyEntry(entry: string): [string, number | null, 'ipv4' | 'ipv6'] | null {
  const [address = '', prefix, extra] = entry.trim().split('/')
  const family = isIP(address)
  if (family === 0 || extra !== undefined) return null
  const max = family === 4 ? 32 : 128
  if (prefix === undefined) return [address, null, family === 4 ? 'ipv4' : 'ipv6']
  if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > max) return null
  return [address, Number(prefix), family === 4 ? 'ipv4' : 'ipv6']
}

function unmapped(address: string): string {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  return m ? m[1]! : address
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
