/** The origin a browser used to reach the service, for absolute return URLs. */
import type { IncomingMessage } from 'node:http'

/** `http(s)://<Host>` of `req`. */
export function requestOrigin(req: IncomingMessage, https: boolean): string {
  return `${https ? 'https' : 'http'}://${req.headers.host ?? 'localhost'}`
}
