/**
 * A URL with its password hidden, for messages and logs. Clients read a password up to the
 * authority's last `@` (an `@` or `/` in it need not be escaped for the operator to have typed
 * it), and some from a `password` parameter: everything up to the URL's last `@` is hidden, and
 * that parameter.
 */
export function redactUrl(url: string): string {
  return url
    .replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*):.*@/is, '$1:***@')
    .replace(/([?&]password=)[^&#]*/gi, '$1***')
}
