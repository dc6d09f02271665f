/**
 * The error raised for bytes or frame sequences that break the tunnel protocol. It always ends the
 * connection: a peer that sends one cannot be trusted to agree on stream state any more.
 */

/** What was wrong with what the peer sent. */
export type ProtocolErrorCode =
  | 'truncated'
  | 'too_large'
  | 'unknown_type'
  | 'bad_stream'
  | 'bad_payload'
  | 'flow_control'
  | 'version'

/** A protocol violation by the peer. Close the connection with WebSocket code 1002. */
export class ProtocolError extends Error {
  readonly code: ProtocolErrorCode
  constructor(code: ProtocolErrorCode, message: string) {
    super(message)
    this.name = 'ProtocolError'
    this.code = code
  }
}
