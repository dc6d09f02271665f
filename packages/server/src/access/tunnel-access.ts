/**
 * Who may call a tunnel: its access mode and optional IP allowlist, and the one parser of both
 * as owners send them (API, dashboard, `burrowd tunnel create --access`).
 *
 * - `oauth`: agents sign in with OAuth 2.1 against burrowd; only the account's owner approves.
 * - `token`: agents send a static `Authorization: Bearer atk_…` made for the tunnel.
 * - `public`: anyone who knows the URL.
 */
import { BlockList, isIP } from 'node:net'
import { StoreError } from '../store/store-error.js'
import { ACCESS_MODES, isAccessMode, type AccessMode } from '../store/tunnel-access-row.js'

/** Most CIDRs one allowlist holds. */
export const MAX_ALLOWLIST_ENTRIES = 64

/** A value an owner sent that is not a valid access setting (`invalid`); `message` says what to send. */
export class AccessInputError extends StoreError {
  readonly field: string

  constructor(field: string, message: string) {
    super('invalid', message)
    this.name = 'AccessInputError'
    this.field = field
  }
}

/** `value` as an access mode, or `AccessInputError`. */
export function parseAccessMode(value: unknown): AccessMode {
  if (isAccessMode(value)) return value
  throw new AccessInputError(
    'access',
    `"access" must be one of ${ACCESS_MODES.join(', ')}; oauth lets agents sign in with your account`,
  )
}

/** One CIDR (or bare address) normalised, or `AccessInputError`. */
export function parseCidr(entry: unknown): string {
  const text = typeof entry === 'string' ? entry.trim() : ''
  if (text === '' || text.length > 64) throw badCidr(entry)
  const [address = '', prefixText, extra] = text.split('/')
  const family = isIP(address)
  if (family === 0 || extra !== undefined) throw badCidr(entry)
  const max = family === 4 ? 32 : 128
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) throw badCidr(entry)
  const prefix = prefixText === undefined ? max : Number(prefixText)
  if (prefix > max) throw badCidr(entry)
  return `${address.toLowerCase()}/${prefix}`
}

/** An allowlist as sent (an array of CIDRs, or a string of them separated by commas, spaces or lines). */
export function parseAllowlist(value: unknown): string[] {
  const entries =
    typeof value === 'string'
      ? value.split(/[\s,]+/).filter((e) => e !== '')
      : Array.isArray(value)
        ? (value as unknown[])
        : null
  if (entries === null) {
    throw new AccessInputError(
      'allow_ips',
      '"allow_ips" must be an array of CIDRs such as "203.0.113.0/24"',
    )
  }
  if (entries.length > MAX_ALLOWLIST_ENTRIES) {
    throw new AccessInputError(
      'allow_ips',
      `"allow_ips" holds at most ${MAX_ALLOWLIST_ENTRIES} CIDRs; use wider ranges`,
    )
  }
  return [...new Set(entries.map(parseCidr))]
}

/** Whether `address` (as node reports it, IPv4-mapped IPv6 included) is in `allowIps`. */
export function allowlistAdmits(allowIps: readonly string[], address: string): boolean {
  if (allowIps.length === 0) return true
  return allowlistOf(allowIps).check(address)
}

const lists = new Map<string, { check(address: string): boolean }>()

/** A `BlockList` for `allowIps` (cached: the edge asks on every request). */
function allowlistOf(allowIps: readonly string[]): { check(address: string): boolean } {
  const key = allowIps.join(',')
  const cached = lists.get(key)
  if (cached) return cached
  const list = new BlockList()
  for (const cidr of allowIps) {
    const [address = '', prefix = ''] = cidr.split('/')
    list.addSubnet(address, Number(prefix), isIP(address) === 4 ? 'ipv4' : 'ipv6')
  }
  const checker = {
    check(address: string): boolean {
      const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
      const bare = mapped ? mapped[1]! : address
      const family = isIP(bare)
      if (family === 0) return false
      return list.check(bare, family === 4 ? 'ipv4' : 'ipv6')
    },
  }
  if (lists.size > 1000) lists.clear()
  lists.set(key, checker)
  return checker
}

function badCidr(entry: unknown): AccessInputError {
  // Not the value itself when it is no string: an array nested 30,000 deep (60 KB of JSON)
  // overflowed JSON.stringify's stack, and the API answered 500.
  const shown =
    typeof entry === 'string'
      ? `"${entry.slice(0, 64)}"`
      : entry === null
        ? 'null'
        : Array.isArray(entry)
          ? 'an array'
          : typeof entry === 'object'
            ? 'an object'
            : typeof entry === 'number' || typeof entry === 'boolean'
              ? String(entry)
              : typeof entry
  return new AccessInputError(
    'allow_ips',
    `${shown} is not an IP address or CIDR; write e.g. 203.0.113.0/24 or 2001:db8::/32`,
  )
}
