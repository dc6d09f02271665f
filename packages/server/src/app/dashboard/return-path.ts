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
  // Control characters are no part of a URL a browser sends; anything else outside printable
  // ASCII (a space, or what a Location header cannot carry) is percent-encoded as UTF-8.
  // eslint-disable-next-line no-control-regex
  if (!next.startsWith('/oauth/authorize?') || /[\\\x00-\x1f\x7f-\x9f]/.test(next)) return null
  const encoded = next.replace(/[^\x21-\x7e]+/g, (run) =>
    [...Buffer.from(run, 'utf8')].map((b) => `%${b.toString(16).toUpperCase()}`).join(''),
  )
  return encoded.length > 8_000 ? null : encoded
}
