/**
 * Hashing of tunnel keys. The store keeps only this hash, so a leaked database does not leak
 * keys; keys have 256 random bits, so a plain (unsalted) SHA-256 is enough to look them up.
 */

import { createHash } from 'node:crypto'

/** The SHA-256 of `key`, as 64 lower-case hex digits. */
export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex')
}
