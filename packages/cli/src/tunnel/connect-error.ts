/**
 * Why a connection to the service failed, in words: the errors of `ws` and of Node's sockets
 * name a system call or the WebSocket handshake, which say little to someone starting a tunnel.
 */

const BY_CODE: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'host name lookup failed',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EPIPE: 'connection closed',
}

/** A short description of `err`: "connection refused", "no such host", or its own message. */
export function describeConnectError(err: Error & { code?: unknown }): string {
  const code = typeof err.code === 'string' ? err.code : undefined
  if (code && BY_CODE[code]) return BY_CODE[code]
  if (/^Opening handshake has timed out$/.test(err.message))
    return 'no answer to the connection request'
  if (/closed before the connection was established/.test(err.message)) return 'connection closed'
  return err.message
}
