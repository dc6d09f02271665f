/** What a `TunnelMux` is told when it is made: its side, its transport, and its callbacks. */
import type { Frame, RequestHead } from '../frame.js'
import type { ProtocolError } from '../protocol-error.js'
import type { MuxStream } from './mux-stream.js'
import type { MuxRole } from './stream-ids.js'
import type { MuxTransport } from './transport-queue.js'

/** Options and callbacks of a mux. */
export interface TunnelMuxOptions {
  readonly role: MuxRole
  readonly transport: MuxTransport
  /** A peer opened a stream (client side: a public request arrived). */
  readonly onOpen?: (
    stream: MuxStream,
    head: RequestHead,
    body: Uint8Array | undefined,
    fin: boolean,
  ) => void
  /** A connection-level frame arrived: hello, welcome, goaway or pong. */
  readonly onControl?: (frame: Frame) => void
  /** The peer broke the protocol; the owner must close the connection (WebSocket code 1002). */
  readonly onProtocolError?: (err: ProtocolError) => void
  /**
   * A frame of one stream broke the protocol (a head the codec refuses, data beyond the stream's
   * window or after its end): that stream was reset, the connection carries on. For logging. A
   * faulty frame for a stream already closed resets nothing and is dropped without a word.
   */
  readonly onStreamError?: (err: ProtocolError) => void
  /** Pause sending DATA while this many bytes wait in the transport. */
  readonly highWaterBytes?: number
  /**
   * While more than this many bytes wait in the transport, small pieces of DATA wait in their
   * stream's send queue, gathering, instead of going each as a frame (transport-queue.ts); absent,
   * every piece goes at once. For a transport that keeps to `done`'s contract.
   */
  readonly gatherAboveBytes?: number
  /**
   * Bodiless frames (an OPEN without body, WINDOW, RST, an empty FIN, PONG) that may wait in the
   * transport at once; past it the peer is taken to read nothing and the connection fails
   * (default `MAX_QUEUED_CONTROL_FRAMES`). A transport shared by several muxes, whose peer is
   * watched otherwise, may lift it.
   */
  readonly maxQueuedControlFrames?: number
  /** Milliseconds from some fixed point, for window growth; `performance.now` by default. */
  readonly clock?: () => number
  /**
   * Encode DATA into pooled buffers, reused once the transport calls `done` (see
   * frame-buffers.ts). Only for a transport that keeps to `done`'s contract, as a WebSocket does.
   */
  readonly reuseBuffers?: boolean
}
