/**
 * What a mux has handed to its transport and not yet seen written: the bytes of frames with a
 * body, behind which DATA pauses above the high-water mark, and the number of bodiless frames,
 * which is bounded (a peer that makes us answer but never reads is cut off). DATA is encoded into
 * pooled buffers when the transport keeps to `done`'s contract (frame-buffers.ts).
 */
import { encodeData } from '../frame-codec.js'
import { ProtocolError } from '../protocol-error.js'
import { returnFrameBuffer, takeFrameBuffer } from './frame-buffers.js'

/**
 * Where frames go. The transport calls `done` once the bytes were handed to the socket (or
 * failed): after it, the transport must not read `frame` again (a mux with `reuseBuffers` writes
 * the next frame there). The mux counts frames whose `done` has not come as unread by the peer,
 * so a transport must call it for every frame it is given one for.
 */
export interface MuxTransport {
  send(frame: Uint8Array, done?: (err?: Error) => void): void
}

/**
 * Frames without a body (PONG, WINDOW, RST, an empty FIN) that may wait in the transport at once.
 * A peer that keeps sending PINGs or resets but never reads what they make us answer would
 * otherwise grow our write queue without bound; past this many it is cut off.
 */
export const MAX_QUEUED_CONTROL_FRAMES = 10_000

/**
 * DATA frames smaller than this wait, while the transport is backed up past a mux's gather mark
 * (`gatherAbove`), in their stream's send queue, which copies small pieces together into blocks
 * (byte-blocks.ts), instead of going each as a frame of its own.
 */
export const GATHERED_DATA_BYTES = 4 * 1024

/** What a `TransportQueue` needs. */
export interface TransportQueueOptions {
  readonly transport: MuxTransport
  /** Bytes in flight at which DATA pauses. */
  readonly highWater: number
  /** Encode DATA into pooled buffers, reused once the transport calls `done`. */
  readonly reuseBuffers: boolean
  /**
   * Bytes in flight above which a small piece of DATA waits, gathering, instead of going as a
   * frame of its own (at most a quarter of `highWater`); absent, every piece goes at once. The
   * bytes in flight are bounded by `highWater`, but each frame is an entry of the transport's
   * queue too: a peer's one-byte pieces, a frame each, made the entries as many as the bytes.
   */
  readonly gatherAbove?: number
  /**
   * Bodiless frames that may wait at once before the peer is taken to read nothing (default
   * `MAX_QUEUED_CONTROL_FRAMES`).
   */
  readonly maxQueuedControl?: number
  /** Bytes in flight fell to a quarter of the high-water mark (or the gather mark): DATA may go on. */
  readonly onRoom: () => void
  /** The peer left too many bodiless frames unread: the connection must end. */
  readonly onFlood: (err: ProtocolError) => void
}

/** The frames in flight to one transport. */
export class TransportQueue {
  private readonly opts: TransportQueueOptions
  private inflight = 0
  private queuedControl = 0
  private readonly gatherAbove: number
  private readonly maxControl: number
  /** While gathering: each stream's DATA frames in flight, by stream id. */
  private readonly streamFrames = new Map<number, number>()
  private readonly onSent = (size: number) => () => this.sent(size)
  private readonly onControlSent = (): void => {
    this.queuedControl--
  }

  constructor(opts: TransportQueueOptions) {
    this.opts = opts
    // Absent, nothing gathers: the high-water mark's quarter is a mark only for muxes that ask.
    this.gatherAbove =
      opts.gatherAbove === undefined ? Infinity : Math.min(opts.gatherAbove, opts.highWater / 4)
    this.maxControl = opts.maxQueuedControl ?? MAX_QUEUED_CONTROL_FRAMES
  }

  /** Bytes handed to the transport and not yet written out. */
  get bufferedBytes(): number {
    return this.inflight
  }

  /** Whether DATA must wait for the transport. */
  get full(): boolean {
    return this.inflight >= this.opts.highWater
  }

  /**
   * Whether the next DATA frame of stream `id` (`queued` bytes waiting, `limit` at most a frame)
   * should wait, its bytes gathering: while the transport is backed up past the gather mark and a
   * frame of the stream's own is still in it. A stream waits for its own frames only, not for the
   * others': a stream keeping the transport busy past the mark would otherwise keep a small answer
   * waiting as long as it flowed.
   */
  holds(id: number, limit: number, queued: number): boolean {
    const size = Math.min(limit, queued)
    return (
      size > 0 &&
      size < GATHERED_DATA_BYTES &&
      this.inflight > this.gatherAbove &&
      this.streamFrames.has(id)
    )
  }

  /**
   * Hand an encoded frame to the transport. Frames with a body count towards the bytes in flight;
   * bodiless ones towards the control-frame bound.
   */
  send(bytes: Uint8Array, bodyBytes: number): void {
    if (bodyBytes > 0) {
      this.inflight += bytes.length
      this.opts.transport.send(bytes, this.onSent(bytes.length))
      return
    }
    if (this.queuedControl >= this.maxControl) {
      this.opts.onFlood(
        new ProtocolError(
          'flood',
          `the peer left ${this.maxControl} control frames unread (PONG, WINDOW, RST)`,
        ),
      )
      return
    }
    this.queuedControl++
    this.opts.transport.send(bytes, this.onControlSent)
  }

  /** Encode and send a DATA frame of `size` bytes from `parts`. */
  sendData(id: number, parts: readonly Uint8Array[], size: number, fin: boolean): void {
    const tracked = this.gatherAbove !== Infinity && size > 0
    if (tracked) this.streamFrames.set(id, (this.streamFrames.get(id) ?? 0) + 1)
    if (!this.opts.reuseBuffers || size === 0) {
      const bytes = encodeData(id, parts, fin)
      this.inflight += bytes.length
      const onSent = this.onSent(bytes.length)
      this.opts.transport.send(bytes, tracked ? () => (this.streamSent(id), onSent()) : onSent)
      return
    }
    const pooled = takeFrameBuffer()
    const bytes = encodeData(id, parts, fin, pooled)
    const length = bytes.length
    this.inflight += length
    this.opts.transport.send(bytes, () => {
      returnFrameBuffer(pooled)
      if (tracked) this.streamSent(id)
      this.sent(length)
    })
  }

  /** A DATA frame of stream `id` left through the transport. */
  private streamSent(id: number): void {
    const left = this.streamFrames.get(id)! - 1
    if (left === 0) this.streamFrames.delete(id)
    else this.streamFrames.set(id, left)
  }

  /** `size` bytes left through the transport: more DATA may follow. */
  private sent(size: number): void {
    this.inflight -= size
    // The gather mark is at most a quarter of the high-water mark: room then too.
    if (this.inflight <= this.opts.highWater / 4) this.opts.onRoom()
  }
}
