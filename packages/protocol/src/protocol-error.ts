/**
 * The error raised for bytes or frame sequences that break the tunnel protocol. One that names a
 * stream (`streamId` > 0: a bad head, data beyond a stream's window or after its end) resets
 * that stream only; one on stream 0 (a frame that cannot be framed, a connection-level frame, the
 * connection's own window) ends the connection: its peer cannot be trusted to agree on state.
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
  /** The peer does not read what it makes us send (it floods PINGs and leaves the PONGs). */
  | 'flood'

/**
 * A protocol violation by the peer: of one stream (reset it) or of the connection (close it with
 * WebSocket code 1002).
 */
export class ProtocolError extends Error {
  readonly code: ProtocolErrorCode
  /** The stream at fault, or 0 when the connection itself is. */
  readonly streamId: number
  constructor(code: ProtocolErrorCode, message: string, streamId = 0) {
    super(message)
    this.name = 'ProtocolError'
    this.code = code
    this.streamId = streamId
  }
}
