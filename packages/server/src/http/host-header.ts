/**
 * Whether a request's `Host` header can be routed by: RFC 9112 §3.2 has a server answer 400 to a
 * request that names it more than once or with a value that is not a host and port. Node keeps
 * the first of several and drops the rest, so such a request would be routed by the first while
 * a proxy before burrowd may have read another; and burrowd routes by the name before the last
 * colon, so `Host: a--b.zone:x@c.example` reached `a--b`'s tunnel while a proxy could read it as
 * `c.example`. Both found by hostile reviews.
 */

/** An IP literal or a registered name (RFC 3986 §3.2.2), and a port of digits, or nothing. */
const HOST_AND_PORT = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9\-._~%!$&'()*+,;=]*)(?::([0-9]{0,5}))?$/

/** What is wrong with a request's `Host` (for the refusal's message and reason), or null. */
export function hostHeaderProblem(
  rawHeaders: readonly string[],
): { readonly message: string; readonly reason: string } | null {
  let value: string | undefined
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!
    if (name.length !== 4 || name.toLowerCase() !== 'host') continue
    if (value !== undefined) {
      return {
        message: 'Host header repeated',
        reason: 'the request names its Host more than once',
      }
    }
    value = rawHeaders[i + 1] ?? ''
  }
  if (value === undefined) return null
  const port = HOST_AND_PORT.exec(value)?.[1]
  if (HOST_AND_PORT.test(value) && (port === undefined || port === '' || Number(port) <= 65535)) {
    return null
  }
  return {
    message: 'Host header malformed',
    reason: 'the Host header is not a host name or address with an optional port (RFC 3986)',
  }
}
