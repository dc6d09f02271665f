/**
 * Which client sent a request. The peer address, unless the peer is a trusted proxy
 * (`BURROW_TRUSTED_PROXIES`: the TLS terminator or load balancer in front of burrowd); then the
 * `X-Forwarded-For` list is read from the right, past every trusted hop, to the first address
 * that is not one. Anyone else's `X-Forwarded-For` is ignored: a client cannot choose its own
 * address. Rate limits key IPv6 clients by /64, the block one host usually gets, so rotating
 * addresses inside it buys nothing. Limits that also bound a whole network (`networkKeyOf`: an
 * IPv4 /24, an IPv6 /48, what one site or customer usually holds) do so for mail, so that many
 * addresses next to each other are not as many allowances (docs/decisions.md, "Mail allowances
 * per client network").
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
  const plain = unmapped(address)
  return isIP(plain) === 6 ? ipv6Prefix(plain, 4) : plain
}

/**
 * The key of the network around a client address (`ClientAddresses.of`): its /24 for IPv4
 * (`203.0.113.0/24`), its /48 for IPv6 (`2001:db8:5::/48`); anything else is its own key.
 */
export function networkKeyOf(address: string): string {
  const plain = unmapped(address)
  const family = isIP(plain)
  if (family === 4) return `${plain.split('.').slice(0, 3).join('.')}.0/24`
  return family === 6 ? ipv6Prefix(plain, 3) : plain
}

/**
 * The network (`networkKeyOf`) of a rate-limit key `rateKeyOf` made: `203.0.113.7` is in
 * `203.0.113.0/24`, `2001:db8:5:1::/64` in `2001:db8:5::/48`; anything else is its own. The
 * overflow groups of per-address limits (`RateLimiterOptions.overflowGroup`).
 */
export function networkOfRateKey(key: string): string {
  if (isIP(key) === 4) return networkKeyOf(key)
  const v6 = /^([0-9a-f]{1,4}:[0-9a-f]{1,4}:[0-9a-f]{1,4}):[0-9a-f]{1,4}::\/64$/.exec(key)
  return v6 ? `${v6[1]}::/48` : key
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

/** `address`, or the IPv4 address an IPv4-mapped IPv6 one (`::ffff:a.b.c.d`, any spelling) is. */
function unmapped(address: string): string {
  const bare = address.split('%', 1)[0]!
  if (isIP(bare) !== 6 || !/^[0:]*:ffff:/i.test(bare)) return address
  const g = ipv6Groups(bare)
  if (!g.slice(0, 5).every((x) => x === 0) || g[5] !== 0xffff) return address
  return [g[6]! >> 8, g[6]! & 0xff, g[7]! >> 8, g[7]! & 0xff].join('.')
}

/** The first `count` groups of an IPv6 address, written `a:b:c:d::/64` (16 bits a group). */
function ipv6Prefix(address: string, count: number): string {
  return `${ipv6Groups(address.split('%', 1)[0]!)
    .slice(0, count)
    .map((g) => g.toString(16))
    .join(':')}::/${count * 16}`
}

/** The eight 16-bit groups of an IPv6 literal without zone (valid: `isIP` said so). */
function ipv6Groups(text: string): number[] {
  let hex = text.toLowerCase()
  // A last 32 bits written as an IPv4 address (`::ffff:1.2.3.4`, `64:ff9b::1.2.3.4`) are 2 groups.
  const colon = hex.lastIndexOf(':')
  const tail = hex.slice(colon + 1)
  if (tail.includes('.')) {
    const [a = 0, b = 0, c = 0, d = 0] = tail.split('.').map(Number)
    hex = `${hex.slice(0, colon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const [head = '', rest] = hex.split('::', 2)
  const split = (part: string): string[] => (part === '' ? [] : part.split(':'))
  const left = split(head)
  const right = rest === undefined ? [] : split(rest)
  const fill = Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0')
  return [...left, ...fill, ...right].map((g) => parseInt(g, 16))
}
