/**
 * The inspector's access token (docs/decisions.md, Inspector): a fresh random one per run (192
 * bits, base64url), or the fixed one from BURROW_INSPECT_TOKEN. Compared in constant time.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'

/** The token to use: `fixed` when given, else 24 random bytes as base64url (32 characters). */
export function inspectorToken(fixed: string | null): string {
  return fixed ?? randomBytes(24).toString('base64url')
}

/** True when `candidate` equals `token`, in time that does not depend on where they differ. */
export function tokenMatches(token: string, candidate: string | null | undefined): boolean {
  if (candidate === null || candidate === undefined || candidate === '') return false
  // Hashing first gives equal lengths, which timingSafeEqual needs, without leaking the length.
  const a = createHash('sha256').update(token).digest()
  const b = createHash('sha256').update(candidate).digest()
  return timingSafeEqual(a, b)
}
