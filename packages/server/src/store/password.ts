/**
 * Dashboard passwords: the rule a new password must meet, and scrypt hashing. A stored hash is
 * self-describing, `scrypt$<N>$<r>$<p>$<salt>$<hash>` (salt and hash in base64), so the cost
 * can be raised later without breaking the hashes already stored.
 */

import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto'
import type { ScryptOptions } from 'node:crypto'
import { dictionary } from '@zxcvbn-ts/language-common'

/** Shortest password accepted, in characters. */
export const PASSWORD_MIN = 8
/** Longest password accepted, in characters: long enough for passphrases, short enough to hash. */
export const PASSWORD_MAX = 200

/** Cost of new hashes: N = 2^15, r = 8, p = 1 (32 MiB and tens of milliseconds per hash). */
const COST = { N: 2 ** 15, r: 8, p: 1 } as const
const SALT_BYTES = 16
const HASH_BYTES = 32
/** Bounds on what a stored hash may ask for, so a corrupt row cannot make us hash for minutes. */
const MAX_N = 2 ** 20
const MAX_R = 32
const MAX_P = 16
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/

/**
 * A hash of a random password nobody kept, at the cost of new hashes. Sign-in verifies against
 * it when the email is unknown or has no password, so that answer takes as long as a wrong
 * password and response times do not reveal which emails have accounts. Keep its cost in step
 * with `COST` (a test checks).
 */
export const TIMING_DECOY_HASH =
  'scrypt$32768$8$1$9+nUbNiChv5pMiOTsmcK+A==$TCdlWy6UhowIoP6Sc6ik5KwakzKUWMAdidCZhj6U0a0='

/**
 * Why `password` cannot be used, as a sentence for the user, or null when it is acceptable. As
 * NIST SP 800-63B asks: at least 8 characters (counted as code points, so an emoji counts once),
 * not one character repeated (eight spaces), and not a commonly used password (a list of about
 * 18,000 of eight characters or more from `@zxcvbn-ts/language-common`, compared without case).
 * No composition rules (digits, symbols): they make passwords harder to remember, not to guess.
 */
export function passwordProblem(password: string): string | null {
  const chars = [...password]
  if (chars.length < PASSWORD_MIN)
    return `password must be at least ${PASSWORD_MIN} characters long`
  if (chars.length > PASSWORD_MAX) return `password must be at most ${PASSWORD_MAX} characters long`
  if (password.trim() === '') return 'password must not be only spaces'
  if (chars.every((c) => c === chars[0]))
    return 'password must not be one character repeated; choose a few unrelated words'
  if (commonPasswords().has(password.normalize('NFKC').toLowerCase()))
    return 'that password is one of the most commonly used ones; choose another (a few unrelated words make a good one)'
  return null
}

let common: Set<string> | null = null

/** The common passwords long enough to pass the length rule, lower-cased; built on first use. */
function commonPasswords(): Set<string> {
  if (common === null) {
    const list = (dictionary as Record<string, readonly string[]>)['passwords-common'] ?? []
    common = new Set(list.filter((p) => p.length >= PASSWORD_MIN).map((p) => p.toLowerCase()))
  }
  return common
}

/** Hash `password` with scrypt and a fresh random salt, for storing. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES)
  const hash = await derive(password, salt, HASH_BYTES, COST)
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64'), hash.toString('base64')].join(
    '$',
  )
}

/**
 * True when `password` is the one `stored` was made from. Compares in constant time; false (never
 * an exception) when `stored` is not a hash this module made.
 */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parseStored(stored)
  if (parsed === undefined) return false
  const hash = await derive(password, parsed.salt, parsed.hash.length, parsed.cost)
  return timingSafeEqual(hash, parsed.hash)
}

interface Cost {
  readonly N: number
  readonly r: number
  readonly p: number
}

/**
 * scrypt of `password`, normalised to NFKC first so that the same password typed on another
 * keyboard or system (composed or decomposed accents) still matches.
 */
function derive(password: string, salt: Buffer, length: number, cost: Cost): Promise<Buffer> {
  // scrypt needs 128 * N * r bytes; Node refuses above `maxmem` (32 MiB by default), so leave room.
  const options: ScryptOptions = { ...cost, maxmem: 256 * cost.N * cost.r }
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFKC'), salt, length, options, (error, key) => {
      if (error) reject(error)
      else resolve(key)
    })
  })
}

function parseStored(stored: string): { cost: Cost; salt: Buffer; hash: Buffer } | undefined {
  const parts = stored.split('$')
  if (parts.length !== 6 || parts[0] !== 'scrypt') return undefined
  const [N, r, p] = parts.slice(1, 4).map(positiveInteger)
  const salt = base64(parts[4])
  const hash = base64(parts[5])
  if (N === undefined || r === undefined || p === undefined) return undefined
  if (N < 2 || N > MAX_N || (N & (N - 1)) !== 0 || r > MAX_R || p > MAX_P) return undefined
  if (salt === undefined || salt.length < 8 || hash === undefined || hash.length < 16) {
    return undefined
  }
  if (hash.length > 128) return undefined
  return { cost: { N, r, p }, salt, hash }
}

function positiveInteger(text: string | undefined): number | undefined {
  if (text === undefined || !/^[1-9][0-9]{0,9}$/.test(text)) return undefined
  return Number(text)
}

/** The bytes of canonical base64 `text`; undefined for anything else (Node's decoder is lax). */
function base64(text: string | undefined): Buffer | undefined {
  if (text === undefined || !BASE64.test(text)) return undefined
  const bytes = Buffer.from(text, 'base64')
  return bytes.toString('base64') === text ? bytes : undefined
}
