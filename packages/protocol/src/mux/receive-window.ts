/**
 * The connection-level credit one side of a mux gives its peer for DATA: what the peer may still
 * send (`window`), and what was consumed and not yet given back. It bounds what the streams of a
 * connection hold together, whatever their own windows.
 */
import { INITIAL_CONNECTION_WINDOW } from '../frame.js'
import { ProtocolError } from '../protocol-error.js'

/** Consumed credit is given back in steps of half the initial window. */
const HALF_CONNECTION = INITIAL_CONNECTION_WINDOW / 2

/** The connection's receive window. */
export class ReceiveWindow {
  /** Bytes the peer may still send. */
  window = INITIAL_CONNECTION_WINDOW
  private unacked = 0

  /**
   * Count `bytes` of DATA on stream `id` as received. Throws (a fault of the connection) when
   * they are beyond the window.
   */
  take(bytes: number, id: number): void {
    if (bytes > this.window) {
      throw new ProtocolError(
        'flow_control',
        `${bytes} bytes on stream ${id} exceed the connection's window`,
      )
    }
    this.window -= bytes
  }

  /**
   * `bytes` taken earlier were consumed (read, or dropped): the credit to send the peer now, or 0
   * while less than half the window waits. Only bytes taken may be given back: crediting bytes
   * never counted (junk DATA for a closed stream, a late RESPONSE's inline body) widened the
   * window without bound, and a hostile peer lifted the bound on what its streams hold.
   */
  give(bytes: number): number {
    this.unacked += bytes
    if (this.unacked < HALF_CONNECTION) return 0
    const credit = this.unacked
    this.window += credit
    this.unacked = 0
    return credit
  }
}
