/**
 * `GET /api/client/latest`: the newest `burrow` release this service announces, which clients
 * compare with their own version in their background update check (at most once a day each).
 * The operator sets it with BURROW_CLIENT_LATEST_VERSION and BURROW_CLIENT_DOWNLOAD_URL.
 */
import type { ServerResponse } from 'node:http'

/** The release announced to clients. */
export interface ClientRelease {
  /** A semantic version, e.g. `0.2.0`. */
  readonly version: string
  /** Where to get it, or null when the operator did not say. */
  readonly downloadUrl: string | null
}

/** Answer `{ "version": "x.y.z", "download_url"?: "…" }`; `head` sends the headers only. */
export function sendClientRelease(res: ServerResponse, release: ClientRelease, head = false): void {
  const body = JSON.stringify({
    version: release.version,
    ...(release.downloadUrl === null ? {} : { download_url: release.downloadUrl }),
  })
  res.writeHead(200, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'public, max-age=300',
  })
  res.end(head ? undefined : body)
}
