/**
 * What kind of IP address a webhook would be sent to, so the URL guard can refuse the ones that
 * reach into burrowd's own host or network (SSRF): loopback, private (RFC 1918), link-local,
 * carrier-grade NAT, IPv6 unique local, multicast, unspecified, reserved ranges, cloud metadata
 * services, and IPv6 forms that embed one of those IPv4 addresses (mapped, 6to4, NAT64). Pure:
 * no DNS here; the guard resolves names and asks about every address.
 */

import { isIP } from 'node:net'

/** Why an address is not a public one; null (from `addressKind`) means public. */
export type AddressKind =
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'shared'
  | 'unique-local'
  | 'multicast'
  | 'reserved'
  | 'metadata'

/** How messages name each kind: "127.0.0.1 is a loopback address". */
export const ADDRESS_KIND_TEXT: Readonly<Record<AddressKind, string>> = {
  unspecified: 'an unspecified address',
  loopback: 'a loopback address',
  private: 'a private address',
  'link-local': 'a link-local address',
  shared: 'a carrier-grade NAT (shared) address',
  'unique-local': 'a unique local IPv6 address',
  multicast: 'a multicast address',
  reserved: 'a reserved or documentation address',
  metadata: 'a cloud metadata service address',
}

/**
 * Kinds refused even when the operator allows private addresses: nothing legitimate listens for
 * webhooks there, and metadata services hand out credentials.
 */
export const ALWAYS_REFUSED: ReadonlySet<AddressKind> = new Set([
  'unspecified',
  'multicast',
  'metadata',
])

/** IPv4 ranges as [first address, prefix length, kind]; metadata hosts come before their ranges. */
const IPV4_RANGES: readonly (readonly [string, number, AddressKind])[] = [
  ['169.254.169.254', 32, 'metadata'], // AWS, GCP, Azure, DigitalOcean, …
  ['169.254.169.253', 32, 'metadata'], // AWS VPC DNS
  ['169.254.170.2', 32, 'metadata'], // AWS ECS task credentials
  ['169.254.170.23', 32, 'metadata'], // AWS EKS pod identity
  ['100.100.100.200', 32, 'metadata'], // Alibaba Cloud
  ['192.0.0.192', 32, 'metadata'], // Oracle Cloud
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'shared'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'reserved'],
  ['192.88.99.0', 24, 'reserved'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'reserved'],
  ['198.51.100.0', 24, 'reserved'],
  ['203.0.113.0', 24, 'reserved'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
]

/**
 * Last groups of AWS's `fd00:ec2::/64` hosts that are the IPv6 twins of the IPv4 metadata hosts
 * above: IMDS (`::254`), the VPC DNS (`::253`) and EKS Pod Identity (`::23`).
 */
const AWS_IPV6_METADATA: ReadonlySet<number> = new Set([0x254, 0x253, 0x23])

/**
 * The kind of `address` (an IPv4 or IPv6 literal, brackets and zone allowed), or null for a
 * public address. Anything that is not an IP literal is `reserved`: the guard never connects to
 * what it could not classify.
 */
export function addressKind(address: string): AddressKind | null {
  const text = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address
  const bare = text.split('%')[0] ?? ''
  const version = isIP(bare)
  if (version === 4) return ipv4Kind(ipv4Number(bare))
  if (version === 6) return ipv6Kind(ipv6Groups(bare))
  return 'reserved'
}

function ipv4Kind(value: number): AddressKind | null {
  for (const [first, prefix, kind] of IPV4_RANGES) {
    const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0
    if ((value & mask) >>> 0 === ipv4Number(first)) return kind
  }
  return null
}

function ipv6Kind(g: readonly number[]): AddressKind | null {
  const at = (i: number): number => g[i] ?? 0
  const zeros = (from: number, to: number): boolean => g.slice(from, to).every((x) => x === 0)
  const embedded = (hi: number, lo: number): number => ((hi << 16) | lo) >>> 0
  if (zeros(0, 8)) return 'unspecified'
  if (zeros(0, 7) && at(7) === 1) return 'loopback'
  // ::ffff:a.b.c.d (mapped) reaches the IPv4 address itself.
  if (zeros(0, 5) && at(5) === 0xffff) return ipv4Kind(embedded(at(6), at(7)))
  // ::a.b.c.d (deprecated "compatible" form): only its IPv4 kind, else nothing routes it.
  if (zeros(0, 6)) return ipv4Kind(embedded(at(6), at(7))) ?? 'reserved'
  // 64:ff9b::/96 (NAT64) reaches the embedded IPv4 address through a translator.
  if (at(0) === 0x64 && at(1) === 0xff9b && zeros(2, 6)) {
    return ipv4Kind(embedded(at(6), at(7)))
  }
  if (at(0) === 0x64 && at(1) === 0xff9b && at(2) === 1) return 'private' // local-use NAT64
  if (at(0) === 0xfd00 && at(1) === 0x0ec2 && zeros(2, 7) && AWS_IPV6_METADATA.has(at(7))) {
    return 'metadata'
  }
  if ((at(0) & 0xfe00) === 0xfc00) return 'unique-local'
  if ((at(0) & 0xffc0) === 0xfe80) return 'link-local'
  if ((at(0) & 0xffc0) === 0xfec0) return 'private' // site-local, deprecated
  if ((at(0) & 0xff00) === 0xff00) return 'multicast'
  // Only 2000::/3 is global unicast; the rest is unassigned or special.
  if ((at(0) & 0xe000) !== 0x2000) return 'reserved'
  if (at(0) === 0x2001 && at(1) === 0x0db8) return 'reserved' // documentation
  if ((at(0) & 0xfff0) === 0x3ff0 && (at(1) & 0xf000) === 0) return 'reserved' // 3fff::/20
  if (at(0) === 0x2001 && at(1) === 0) return 'reserved' // Teredo hides its IPv4 endpoint
  // 2002::/16 (6to4) carries an IPv4 address in its next 32 bits.
  if (at(0) === 0x2002) return ipv4Kind(embedded(at(1), at(2)))
  return null
}

function ipv4Number(text: string): number {
  return text.split('.').reduce((n, octet) => ((n << 8) | Number(octet)) >>> 0, 0)
}

/** The eight 16-bit groups of a valid IPv6 literal without zone (checked by `isIP`). */
function ipv6Groups(text: string): number[] {
  let hex = text.toLowerCase()
  const lastColon = hex.lastIndexOf(':')
  const tail = hex.slice(lastColon + 1)
  if (tail.includes('.')) {
    const v4 = ipv4Number(tail)
    hex = `${hex.slice(0, lastColon + 1)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`
  }
  const [head = '', rest] = hex.split('::')
  const split = (part: string): string[] => (part === '' ? [] : part.split(':'))
  const before = split(head)
  const after = rest === undefined ? [] : split(rest)
  const fill = rest === undefined ? [] : Array<string>(8 - before.length - after.length).fill('0')
  return [...before, ...fill, ...after].map((group) => parseInt(group, 16))
}
