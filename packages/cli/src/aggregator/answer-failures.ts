/**
 * How an HTTP upstream's answer fails the request it answers, in words for the agent's error
 * (`HttpChannel` prefixes the upstream's name and URL): an HTTP error (its JSON-RPC error passed
 * on, or its text quoted), an answer that cannot carry the answer (a redirect, a 202), and a JSON
 * answer that does not hold it. Before, a 202, a redirect, an empty body or one without the
 * answer left the request waiting for ever (the aggregate's calls have no timeout of their own,
 * and the agent's ended only with its own).
 */
import type { Dispatcher } from 'undici'
import { errorResponse, JSONRPC_CODE, type JsonRpcError, type JsonRpcId } from '@burrow/protocol'
import { shownUrl } from '../shown-url.js'
import { header, jsonRpcErrorIn } from './http-response.js'

/**
 * Why the answer to a request cannot answer it, known from its head: a redirect (never followed:
 * a local server must not send burrow elsewhere, and one that moved its endpoint is told so by
 * the error; docs/decisions.md), or a 202 (the spec's "accepted, no answer", for notifications and
 * answers: SDKs read nothing from it, whatever its body). Null for any other answer.
 */
export function unanswerable(response: Dispatcher.ResponseData, base: URL): string | null {
  const status = response.statusCode
  if (status === 202) return 'answered the request with 202 and no response'
  if (status < 300 || status > 399) return null
  let target = ''
  const location = header(response, 'location')
  if (location !== undefined) {
    try {
      target = ` to ${shownUrl(new URL(location, base))}`
    } catch {
      target = ' to an invalid location'
    }
  }
  return `answered the request with a redirect (HTTP ${status}${target}), which burrow does not follow`
}

/**
 * Why the JSON answer `text` (HTTP `status`) did not answer its request: empty, not JSON or not
 * JSON-RPC (`problem`, as `messagesIn` said), or messages none of which answers it.
 */
export function unansweredJson(
  status: number,
  text: string,
  problem: 'parse_error' | 'invalid_request' | null,
): string {
  if (text.trim() === '') return `answered the request with HTTP ${status} and an empty body`
  if (problem === 'parse_error') return `unreadable JSON in the answer (HTTP ${status})`
  if (problem !== null) return `the answer is not JSON-RPC (HTTP ${status})`
  return `answered the request with HTTP ${status} and no response to it`
}

/**
 * The answer to request `id` refused with HTTP `status` and body `text` (its first 2,048
 * characters): the JSON-RPC error the body holds, or one quoting it.
 */
export function httpErrorAnswer(
  id: JsonRpcId,
  status: number,
  text: string,
  shown: string,
): JsonRpcError {
  const detail = jsonRpcErrorIn(text)
  if (detail) return errorResponse(id, detail.code, detail.message, detail.data)
  const message = `HTTP ${status} from ${shown}${text ? `: ${text}` : ''}`
  return errorResponse(id, JSONRPC_CODE.serverError, message)
}
