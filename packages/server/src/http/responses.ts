/**
 * Writing answers: JSON that is never cached (every JSON answer burrowd writes itself), HTML
 * pages and redirects with the page security headers, JSON with the API's security headers, and
 * the API's error object `{"error": {"code", "message", …}}`.
 */
import type { ServerResponse } from 'node:http'
import type { SafeHtml } from './html.js'
import { HttpError } from './http-error.js'
import {
  apiSecurityHeaders,
  pageSecurityHeaders,
  type SecurityHeaderOptions,
} from './security-headers.js'

/** Send an HTML page. */
export function sendHtml(
  res: ServerResponse,
  status: number,
  body: SafeHtml,
  opts: SecurityHeaderOptions & { cookies?: string[] } = {},
): void {
  const text = body.value
  res.writeHead(status, {
    ...pageSecurityHeaders(opts),
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...(opts.cookies ? { 'set-cookie': opts.cookies } : {}),
  })
  res.end(text)
}

/** Redirect a browser with 303 (after a form post) or 302. */
export function redirect(
  res: ServerResponse,
  location: string,
  opts: { cookies?: string[]; status?: number } = {},
): void {
  res.writeHead(opts.status ?? 303, {
    ...pageSecurityHeaders(),
    location,
    'content-length': 0,
    ...(opts.cookies ? { 'set-cookie': opts.cookies } : {}),
  })
  res.end()
}

/** Send `value` as JSON, not to be cached; `headers` add to these or replace them. */
export function sendJson(
  res: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(value)
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    ...headers,
  })
  res.end(text)
}

/** Send a JSON value of the API, with the API's security headers (204 without one). */
export function sendApiJson(
  res: ServerResponse,
  status: number,
  value?: unknown,
  headers: Record<string, string> = {},
): void {
  if (value === undefined) {
    res.writeHead(status, { ...apiSecurityHeaders(), ...headers })
    res.end()
    return
  }
  sendJson(res, status, value, {
    ...apiSecurityHeaders(),
    'content-type': 'application/json; charset=utf-8',
    ...headers,
  })
}

/** Send an `HttpError` as the API's error object. */
export function sendApiError(
  res: ServerResponse,
  err: HttpError,
  headers: Record<string, string> = {},
): void {
  sendApiJson(
    res,
    err.status,
    { error: { code: err.code, message: err.message, ...err.details } },
    headers,
  )
}

/** Turn anything thrown by a handler into an HttpError (unknown errors become 500 and are rethrown). */
export function asHttpError(err: unknown): HttpError {
  if (err instanceof HttpError) return err
  throw err
}
