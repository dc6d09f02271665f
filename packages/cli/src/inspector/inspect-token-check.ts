/**
 * What a fixed inspector token (BURROW_INSPECT_TOKEN) must be. `/api/proof` answers anyone who
 * can reach the inspector with an HMAC keyed with the token (token-proof.ts), and one answer is
 * enough to test guesses offline at the speed of SHA-256: a token must be as hard to guess as
 * the 128 random bits of a fresh one would be, which a short or repetitive one is not.
 */
import { UsageError } from '../cli-errors.js'

/** Fewest characters: 22 of base64url's 64 carry 132 bits when drawn at random. */
export const INSPECT_TOKEN_MIN = 22
/** Fewest characters of a token written in hex digits alone: 32 carry 128 bits. */
const HEX_MIN = 32
const MAX = 128
/** Fewest different characters: rules out `aaaa…` and `abababab…`, which no random draw makes. */
const MIN_DISTINCT = 8

/** Throws a UsageError naming what is wrong with `token`, and how to make a good one. */
export function checkInspectToken(token: string): void {
  const how = 'make one with `openssl rand -hex 16`'
  if (!/^[A-Za-z0-9_-]*$/.test(token)) {
    throw new UsageError(`BURROW_INSPECT_TOKEN may hold only A-Z, a-z, 0-9, "_" and "-"; ${how}`)
  }
  if (token.length < INSPECT_TOKEN_MIN || token.length > MAX) {
    throw new UsageError(
      `BURROW_INSPECT_TOKEN must be ${INSPECT_TOKEN_MIN}-${MAX} characters long (it has ` +
        `${token.length}): a shorter one can be guessed from the inspector's answers; ${how}`,
    )
  }
  if (/^[0-9a-fA-F]+$/.test(token) && token.length < HEX_MIN) {
    throw new UsageError(
      `BURROW_INSPECT_TOKEN written in hex digits alone must be at least ${HEX_MIN} long (it ` +
        `has ${token.length}): each carries 4 bits, not 6; ${how}`,
    )
  }
  if (new Set(token).size < MIN_DISTINCT) {
    throw new UsageError(
      `BURROW_INSPECT_TOKEN repeats too few characters to be hard to guess; ${how}`,
    )
  }
}
