/**
 * A local server's URL as messages show it, to agents (JSON-RPC errors) and in the log: its
 * origin and path, without the user name and password, and with its query and fragment written
 * `?…`. A local server's key is often given in its URL (`?api_key=…`, `http://user:key@…`): found
 * by hostile review, the errors the aggregator and the HTTP relay answered agents with quoted the
 * whole URL, so any agent calling while the server was down or failing read its key.
 */
export function shownUrl(url: URL): string {
  const hidden = url.search !== '' || url.hash !== '' || url.href.endsWith('?')
  return `${url.origin}${url.pathname}${hidden ? '?…' : ''}`
}
