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

/** `body` as JSON, readable cross-origin, never cached. */
export function oauthJson(res: ServerResponse, status: number, body: unknown): void {
  sendJson(res, status, body, {
    'access-control-allow-origin': '*',
    'cache-control': 'no-store',
    pragma: 'no-cache',
  })
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
