/**
 * How the OAuth endpoints answer: JSON that browser-based clients may read and nobody caches,
 * OAuth's error body, and the CORS preflight.
 */
import type { ServerResponse } from 'node:http'
import { sendJson } from '../../http/responses.js'
import type { OauthError } from '../../access/oauth/oauth-error.js'

/** An `OauthError` as OAuth's error body. */
export function errorBody(err: OauthError) {
  return { error: err.code, error_description: err.message }
}

/** `body` as JSON, readable cross-origin, never cached; `headers` add to these. */
export function oauthJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  sendJson(res, status, body, {
    'access-control-allow-origin': '*',
    'access-control-expose-headers': 'retry-after',
    'cache-control': 'no-store',
    pragma: 'no-cache',
    ...headers,
  })
}

/** An `OauthError` answered as JSON, with `Retry-After` when it says how long to wait. */
export function oauthErrorJson(res: ServerResponse, err: OauthError): void {
  const wait = err.retryAfterSecs
  oauthJson(res, err.status, errorBody(err), wait === undefined ? {} : { 'retry-after': `${wait}` })
}

/** The answer to a CORS preflight of the OAuth endpoints. */
export function preflight(res: ServerResponse): void {
  res.writeHead(204, {
    'access-control-allow-origin': '*',
    'access-control-allow-methods': 'GET, POST, OPTIONS',
    'access-control-allow-headers': 'content-type, authorization, mcp-protocol-version',
    'access-control-max-age': '86400',
  })
  res.end()
}
