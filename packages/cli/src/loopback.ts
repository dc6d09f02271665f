/**
 * Whether a host can only be this machine: `localhost` and `*.localhost`, `::1`, and an IPv4
 * address in 127.0.0.0/8 written out as four numbers (not a name such as
 * `127.0.0.1.evil.example`, which a DNS-rebinding attacker can hold), also as an IPv4-mapped
 * IPv6 address (`::ffff:127.0.0.1`, as Node reports a socket bound to `[::ffff:7f00:1]`, or
 * `::ffff:7f00:1`, as a URL writes it). The one place the CLI decides loopback-ness: the metrics
 * listener's Host check, the inspector's warning, the tunnel's frame masking.
 */

const OCTET = '(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)'
const LOOPBACK_V4 = new RegExp(`^127\\.${OCTET}\\.${OCTET}\\.${OCTET}$`)
/** `::ffff:` and the IPv4 address as two hexadecimal groups (`7f00:1`). */
const MAPPED_HEX = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/

/** True for a host name or address (IPv6 with or without brackets) that is this machine. */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[(.*)\]$/, '$1')
  if (h === 'localhost' || h.endsWith('.localhost') || h === '::1') return true
  return LOOPBACK_V4.test(unmapped(h))
}

/** True for a Host header naming a loopback host, with or without a port. */
export function isLoopbackHostHeader(header: string): boolean {
  const h = header.toLowerCase()
  const name = h.startsWith('[') ? h.slice(1, h.indexOf(']')) : h.replace(/:\d*$/, '')
  return isLoopbackHost(name)
}

/** `::ffff:a.b.c.d` and `::ffff:XXXX:XXXX` as `a.b.c.d`; anything else as is. */
function unmapped(host: string): string {
  if (host.startsWith('::ffff:') && host.includes('.')) return host.slice('::ffff:'.length)
  const hex = MAPPED_HEX.exec(host)
  if (!hex) return host
  const high = parseInt(hex[1]!, 16)
  const low = parseInt(hex[2]!, 16)
  return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`
}
