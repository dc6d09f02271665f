/**
 * How the inspector answers over HTTP: the security headers every response carries, JSON and
 * text replies, and reading the small JSON bodies of its POST routes. Mutations accept only
 * `application/json`, which a cross-site form cannot send and cross-site `fetch` cannot send
 * without a CORS preflight the inspector never grants.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'

/** Headers on every inspector response. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-security-policy':
    "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-store',
})

/** A request the route cannot serve, answered with `status` and a JSON `{error}`. */
export class HttpProblem extends Error {
  readonly status: number
  constructor(status: number, message: string) {
    super(message)
    this.name = 'HttpProblem'
    this.status = status
  }
}

/** Reply with a JSON value. */
export function sendJson(
  res: ServerResponse,
  status: number,
  value: unknown,
  headers: Readonly<Record<string, string>> = {},
): void {
  const body = JSON.stringify(value)
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
  })
  res.end(body)
}

/** Reply with text (a page, a script, a stylesheet). */
export function sendText(
  res: ServerResponse,
  status: number,
  contentType: string,
  text: string,
  headers: Readonly<Record<string, string>> = {},
): void {
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    ...headers,
    'content-type': `${contentType}; charset=utf-8`,
    'content-length': String(Buffer.byteLength(text)),
  })
  res.end(text)
}

/** Reply with `{error}` and the problem's status. */
export function sendProblem(res: ServerResponse, problem: HttpProblem): void {
  sendJson(res, problem.status, { error: problem.message })
}

/** Read a POST's JSON body (at most `maxBytes`); throws HttpProblem 415, 413 or 400. */
export async function readJsonBody(req: IncomingMessage, maxBytes = 256 * 1024): Promise<unknown> {
  const type = req.headers['content-type'] ?? ''
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    req.resume()
    throw new HttpProblem(415, 'send the request with content-type: application/json')
  }
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > maxBytes) throw new HttpProblem(413, `the request body exceeds ${maxBytes} bytes`)
    chunks.push(chunk)
  }
  const text = Buffer.concat(chunks).toString('utf8')
  if (text.trim() === '') return {}
  try {
    return JSON.parse(text) as unknown
  } catch {
    throw new HttpProblem(400, 'the request body is not valid JSON')
  }
}
