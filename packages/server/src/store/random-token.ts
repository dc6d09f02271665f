/**
 * Fresh random identifiers and secrets made by the store: row ids (`acc_…`, `tun_…`, `tok_…`,
 * `crash_…`), tunnel keys (`mtk_…`), other secrets (session cookies, API tokens) and random
 * subdomains.
 */

import { randomBytes, randomInt } from 'node:crypto'

/** Prefix of every tunnel key; the broker and the CLI recognise keys by it. */
export const TUNNEL_KEY_PREFIX = 'mtk_'

/** A new row id: `prefix` followed by 20 random hex digits (80 bits), e.g. `acc_3f…`. */
export function newId(prefix: 'acc_' | 'tun_' | 'tok_' | 'crash_'): string {
  return prefix + randomBytes(10).toString('hex')
}

/** A new secret: 32 random bytes (256 bits) in base64url, 43 characters. */
export function newSecret(): string {
  return randomBytes(32).toString('base64url')
}

/** A new tunnel key: `mtk_` and a `newSecret()`. */
export function newTunnelKey(): string {
  return TUNNEL_KEY_PREFIX + newSecret()
}

const LETTERS = 'abcdefghijklmnopqrstuvwxyz'
const ALPHANUMERIC = LETTERS + '0123456789'

/** A random 8-character subdomain of a-z and 0-9 that starts with a letter. */
export function randomSubdomain(): string {
  let label = LETTERS.charAt(randomInt(LETTERS.length))
  while (label.length < 8) label += ALPHANUMERIC.charAt(randomInt(ALPHANUMERIC.length))
  return label
}
