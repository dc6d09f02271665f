/**
 * Requests node:http cannot parse never reach a handler: node answers them itself with a bare
 * status line (and a header block over `--max-http-header-size` with 431). This answers them with
 * the refusal envelope instead, like every other refusal, then closes the connection.
 */
import type { Duplex } from 'node:stream'
import type { Socket } from 'node:net'
import { ERROR_HEADER, refusal, type PolicyCode } from '@burrow/protocol'
import { hasQueued } from './in-turn.js'

/** How long a request's head and body may take to arrive (node's `requestTimeout`). */
export const REQUEST_TIMEOUT_MS = 60_000

/**
 * Milliseconds an answered connection waits for its client to close its side before it is
 * closed: long enough for a client still sending to read the answer rather than a reset.
 */
export const CLIENT_ERROR_LINGER_MS = 5_000

/** Node's parser error codes that mean "the head is too large". */
const TOO_LARGE = new Set(['HPE_HEADER_OVERFLOW', 'HPE_URI_TOO_LONG'])

/** For `server.on('clientError', …)`: answer `err` on `socket` with the envelope. */
export function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  // A response already under way on this connection (an early answer while its body still
  // came, then the request timeout) must not be followed by a second one: node's own handler
  // checks the same.
  const answering = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage
  // Nor may one answering a request pipelined behind the answer being written (in-turn.ts): it
  // would be read as that answer.
  if (
    err.code === 'ECONNRESET' ||
    !socket.writable ||
    answering?.headersSent === true ||
    hasQueued(socket as Socket)
  ) {
    socket.destroy()
    return
  }
  const [code, reason]: [PolicyCode, string] = TOO_LARGE.has(err.code ?? '')
    ? ['headers_too_large', 'the request line and headers exceed the 16 KiB the service accepts']
    : err.code === 'HPE_HEADER_TIMEOUT'
      ? ['invalid_request', 'the request head did not arrive in time']
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [
            'invalid_request',
            `the request (its head and body) did not arrive within ${REQUEST_TIMEOUT_MS / 1000} s`,
          ]
        : ['invalid_request', 'the request is not valid HTTP/1.1']
  const r = refusal(code, code.replace(/_/g, ' '), reason)
  const body = JSON.stringify(r.body)
  socket.end(
    `HTTP/1.1 ${r.status} ${r.status === 431 ? 'Request Header Fields Too Large' : 'Bad Request'}\r\n` +
      `Content-Type: application/json\r\n${ERROR_HEADER}: ${code}\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  )
  // Ending the server's side is not enough: node's server keeps half-open connections, and a
  // client that never closes its side (one that sent nothing gets this answer too) would hold
  // the connection for good.
  const linger = setTimeout(() => socket.destroy(), CLIENT_ERROR_LINGER_MS)
  linger.unref()
  socket.once('close', () => clearTimeout(linger))
}
