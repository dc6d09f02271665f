/**
 * Refuses a WebSocket upgrade with a plain HTTP response carrying the refusal envelope, before any
 * 101, so the client can read why (the CLI turns a 401 into "authentication failed").
 */
import type { Duplex } from 'node:stream'
import { ERROR_HEADER, refusal, type PolicyCode } from '@burrow/protocol'
import { CLIENT_ERROR_LINGER_MS } from '../http/answer-client-error.js'

/** Answer the upgrade request on `socket` with the envelope for `code`, then close it. */
export function rejectUpgrade(
  socket: Duplex,
  code: PolicyCode,
  reason: string,
  message: string = code.replace(/_/g, ' '),
  headers: Readonly<Record<string, string>> = {},
): void {
  // Node hands an upgrade's (or a CONNECT's) socket over without its own error handler: a write
  // failing on a connection the client reset would otherwise be an uncaught error.
  socket.on('error', () => {})
  const r = refusal(code, message, reason)
  const body = JSON.stringify(r.body)
  const extra = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')
  socket.end(
    `HTTP/1.1 ${r.status} ${message}\r\n` +
      `Content-Type: application/json\r\n${ERROR_HEADER}: ${code}\r\n${extra}` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  )
  // Ending our side is not enough: an upgrade's socket is the caller's, and one whose client
  // never closes its side stayed half-open for good, a file descriptor held by any stranger
  // (found by a hostile review). It gets the time a client error's answer gets.
  const linger = setTimeout(() => socket.destroy(), CLIENT_ERROR_LINGER_MS)
  linger.unref()
  socket.once('close', () => clearTimeout(linger))
}
