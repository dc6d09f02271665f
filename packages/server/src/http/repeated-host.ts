/**
 * Whether a request's head names `Host` more than once. Node keeps the first and drops the rest,
 * so such a request would be routed by the first while a proxy before burrowd may have read
 * another; RFC 9112 §3.2 has a server answer it 400. Found by a hostile review.
 */
export function hasRepeatedHost(rawHeaders: readonly string[]): boolean {
  let seen = false
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!
    if (name.length !== 4 || name.toLowerCase() !== 'host') continue
    if (seen) return true
    seen = true
  }
  return false
}
