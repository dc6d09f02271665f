/**
 * The service's HTTP address, derived from the broker URL the CLI already knows: the same host
 * and port, `ws:` → `http:` and `wss:` → `https:`. The update check and crash reports use it for
 * burrowd's `/api/…` routes, so no second setting is needed.
 */

/**
 * The origin (`http://host:port`, no path) of the service behind `serviceUrl`, a `ws(s)://` broker
 * URL or an `http(s)://` service URL. Throws TypeError for anything else.
 */
export function serviceHttpBase(serviceUrl: string): string {
  const url = new URL(serviceUrl)
  const scheme = { 'ws:': 'http:', 'wss:': 'https:', 'http:': 'http:', 'https:': 'https:' }[
    url.protocol
  ]
  if (scheme === undefined) throw new TypeError(`"${serviceUrl}" is not a ws(s) or http(s) URL`)
  return `${scheme}//${url.host}`
}
