/**
 * How the aggregator's HTTP client reads a Streamable HTTP server's answers: headers, whether a
 * body is an SSE stream, whether a refusal means the server forgot the session, the JSON-RPC
 * error inside an error body, and a one-line cause for a failed connection.
 */
import type { Dispatcher } from 'undici'
import type { JsonRpcId } from '@burrow/protocol'

type Response = Dispatcher.ResponseData

/** A response header's value (the first, if repeated). */
export function header(response: Response, name: string): string | undefined {
  const value = response.headers[name]
  return Array.isArray(value) ? value[0] : value
}

/** True for a successful response whose body is an SSE stream. */
export function isStream(response: Response): boolean {
  const type = header(response, 'content-type') ?? ''
  return response.statusCode < 300 && type.toLowerCase().startsWith('text/event-stream')
}

/**
 * True when the server refused a request for our session id: 404 as the MCP spec requires, or 400
 * naming the session as some servers (server-everything among them) answer.
 */
export function sessionGone(status: number, body: string): boolean {
  return status === 404 || (status === 400 && /session/i.test(body))
}

/** True when `value` is the response to request `id`. */
export function isAnswerTo(value: unknown, id: JsonRpcId | undefined): boolean {
  if (id === undefined || typeof value !== 'object' || value === null) return false
  const m = value as Record<string, unknown>
  return m.id === id && ('result' in m || 'error' in m)
}

/** The JSON-RPC error in an error response body, if it holds one. */
export function jsonRpcErrorIn(
  text: string,
): { code: number; message: string; data?: unknown } | undefined {
  try {
    const error = (JSON.parse(text) as { error?: unknown }).error as Record<string, unknown>
    if (typeof error?.code === 'number' && typeof error.message === 'string') {
      return { code: error.code, message: error.message, data: error.data }
    }
  } catch {
    // not JSON: the caller quotes the text
  }
  return undefined
}

/** A failed request's cause in one line, e.g. `ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:1`. */
export function describeError(err: unknown): string {
  if (!(err instanceof Error)) return String(err)
  const code = (err as { code?: unknown }).code
  const cause = (err as { cause?: unknown }).cause
  const detail = cause instanceof Error ? cause.message : err.message
  return typeof code === 'string' && !detail.includes(code) ? `${code}: ${detail}` : detail
}
