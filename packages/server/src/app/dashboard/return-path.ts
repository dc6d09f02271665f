/**
 * Where sign-in may send a browser afterwards (`/signin?next=…`): only back to the OAuth
 * authorization endpoint on this host, so the parameter cannot make burrowd an open redirect.
 */

/** `next` when it is a path of the authorization endpoint here, else null. */
export function returnPath(next: string | null | undefined): string | null {
  if (typeof next !== 'string' || next.length > 8_000) return null
  if (!next.startsWith('/oauth/authorize?') || /[\\\r\n]/.test(next)) return null
  return next
}
