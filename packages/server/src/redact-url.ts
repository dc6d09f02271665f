/**
 * A URL with its password hidden, for messages and logs. Clients read a password up to the
 * authority's last `@` (an `@` or `/` in it need not be escaped for the operator to have typed
 * it), and some from a `password` parameter: everything up to the URL's last `@` is hidden, and
 * that parameter. A URL misspelt around its authority (`postgres:/…`, `postgres:///…`, no
 * scheme at all), which is refused or read some other way, is still hidden up to its last `@`;
 * so is the password of a libpq keyword/value string given instead of a URL.
 */
export function redactUrl(url: string): string {
  return hideUserInfo(url).replace(PASSWORD_PARAMETER, '$1***')
}

/**
 * A `password` parameter: of a URL's query, or of a libpq keyword/value string
 * (`host=db password='a b'`), which libpq takes for a database and an operator may give in its
 * place; its value runs to the next separator, or is quoted (escapes inside, maybe unclosed).
 */
const PASSWORD_PARAMETER = /((?:^|[?&\s])password\s*=\s*)(?:'(?:[^'\\]|\\.)*(?:'|$)|[^&#\s]*)/gi

/** `url` with what follows the user name, up to the last `@`, as `***`. */
function hideUserInfo(url: string): string {
  // The scheme with its slashes however many (without any, `user:` could read as one), then
  // everything up to the last `@`.
  const parts = /^((?:[a-z][a-z0-9+.-]*:\/+)?)(.*)@/is.exec(url)
  if (parts === null) return url
  const [whole, prefix = '', userInfo = ''] = parts
  // No `:` before the last `@`: a user name alone, nothing to hide.
  if (!userInfo.includes(':')) return url
  // The user name before the first `:` is kept; any other spelling goes whole.
  const user = /^[^:/@]*(?=:)/.exec(userInfo)
  return `${prefix}${user === null ? '' : `${user[0]}:`}***@${url.slice(whole.length)}`
}
