/**
 * Reading and writing cookies. The service sets only its own session and sign-in cookies,
 * always HttpOnly and SameSite=Lax, host-only (no Domain), and Secure when it is served over
 * https, where their names carry the `__Host-` prefix (`cookieNames` in app/session-auth.ts).
 */

/** The cookies a request carries, by name (the first of duplicates wins). */
export function parseCookies(header: string | undefined): Map<string, string> {
  const out = new Map<string, string>()
  if (!header) return out
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq <= 0) continue
    const name = part.slice(0, eq).trim()
    if (out.has(name)) continue
    let value = part.slice(eq + 1).trim()
    if (value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1)
    try {
      out.set(name, decodeURIComponent(value))
    } catch {
      // A value that is not valid percent-encoding is not one of ours.
    }
  }
  return out
}

/** Options of `serializeCookie`. */
export interface CookieOptions {
  /** Seconds until it expires; 0 deletes it; absent makes a browser-session cookie. */
  readonly maxAgeSecs?: number
  readonly secure: boolean
}

/**
 * A `Set-Cookie` value: HttpOnly, SameSite=Lax, Path=/, never a Domain. A `__Host-` name must be
 * Secure (browsers drop it otherwise): asking for one without is a mistake, and throws.
 */
export function serializeCookie(name: string, value: string, opts: CookieOptions): string {
  if (name.startsWith('__Host-') && !opts.secure) {
    throw new Error(`the ${name} cookie must be Secure: browsers refuse it otherwise`)
  }
  const parts = [`${name}=${encodeURIComponent(value)}`, 'Path=/', 'HttpOnly', 'SameSite=Lax']
  if (opts.maxAgeSecs !== undefined) parts.push(`Max-Age=${opts.maxAgeSecs}`)
  if (opts.secure) parts.push('Secure')
  return parts.join('; ')
}
