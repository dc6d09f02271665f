/**
 * Where sign-in may send a browser afterwards (`/signin?next=…`): only back to the OAuth
 * authorization endpoint or to an address verification link on this host, so the parameter
 * cannot make burrowd an open redirect.
 */

/** A verification link's path, as `/verify` is sent back to after sign-in. */
const VERIFY_PATH = /^\/verify\?token=[A-Za-z0-9_-]{1,128}$/

/** `next` when it is a path of the authorization endpoint or a verification link, else null. */
export function returnPath(next: string | null | undefined): string | null {
  if (typeof next !== 'string' || next.length > 8_000) return null
  if (VERIFY_PATH.test(next)) return next
  if (!next.startsWith('/oauth/authorize?') || /[\\\r\n]/.test(next)) return null
  return next
}
