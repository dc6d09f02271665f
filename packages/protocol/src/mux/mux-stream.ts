/**
 * One request/response exchange inside a tunnel connection. The sending half queues body bytes
 * and sends them as the peer grants credit; the receiving half hands bytes to a reader and returns
 * credit only once the reader has taken them, so a slow consumer slows its producer instead of
 * filling memory.
 *
 * What waits to be sent is held in `ByteBlocks`: small pieces written while others wait are copied
 * together. A node relaying a tunnel client's answer to another node writes each DATA frame the
 * client sent into such a queue; a client sending one byte per frame left one Buffer per byte
 * there (about a hundred bytes, and the socket read it points into), bounded only by the bytes
 * the stream's credit counts (up to 4 MiB a stream): 2 MiB of each of three such answers grew
 * the relaying node by 750 MB, and every frame to the peer shifted its pieces one at a time out
 * of an array that long (found by a hostile review). Large pieces, and a piece written while
 * nothing waits (it usually leaves at the end of the turn), are kept as they came: a big answer
 * is not copied once more.
 */
import { ByteBlocks } from '../byte-blocks.js'
import {
  INITIAL_STREAM_WINDOW,
  MAX_CHUNK_BYTES,
  RESET_CODE,
  type ResetCode,
  type ResponseHead,
} from '../frame.js'

/**
 * A stream's queue may hold this much before `write` asks the producer to wait: one initial
 * window, what the peer may accept at once. DATA leaves at the end of the event-loop turn, so a
 * single socket read of a local reply (64 KiB) is queued whole before any of it is sent; a
 * smaller bound would stop and restart the producer on every read.
 */
export const STREAM_QUEUE_HIGH = INITIAL_STREAM_WINDOW

/** What a stream needs from its connection. Internal to the mux. */
export interface StreamHost {
  sendResponse(
    stream: MuxStream,
    head: ResponseHead,
    body: Uint8Array | undefined,
    fin: boolean,
  ): void
  schedule(stream: MuxStream): void
  sendFin(stream: MuxStream): void
  sendReset(stream: MuxStream, code: ResetCode, reason: string): void
  grant(stream: MuxStream, bytes: number): void
  finished(stream: MuxStream): void
}

/** A reader for incoming body bytes. Return false when full; call `resumeReading()` later. */
export type DataReader = (chunk: Uint8Array) => boolean | void

/** One multiplexed stream. Create through `TunnelMux.open` or receive through `onOpen`. */
export class MuxStream {
  readonly id: number
  /** Called with the RESPONSE head on a stream this side opened. */
  onResponse: ((head: ResponseHead, body: Uint8Array | undefined, fin: boolean) => void) | null =
    null
  /** Called when the peer ends its direction. */
  onEnd: (() => void) | null = null
  /** Called when the stream is reset by the peer or because the connection closed. */
  onReset: ((code: ResetCode, reason: string) => void) | null = null
  /** Called when a `write` that returned false may continue. */
  onDrain: (() => void) | null = null
  /**
   * Called once when this side's direction is over: its last frame went to the transport (DATA
   * is sent at the end of the event-loop turn, so a body can outlive the call that ended it),
   * or the stream was reset or lost with its connection.
   */
  onLocalEnd: (() => void) | null = null

  /** Credit the peer granted us for DATA on this stream. @internal */
  sendWindow = INITIAL_STREAM_WINDOW
  /** Credit we granted the peer and it has not used yet. @internal */
  recvWindow = INITIAL_STREAM_WINDOW
  /** The window we offer: the initial one, grown for a fast reader. @internal */
  recvTarget = INITIAL_STREAM_WINDOW
  /** Bytes credited back since `streakStart`. @internal */
  recvStreak = 0
  /** When the current run of credited bytes began (mux clock); −1 before any credit. @internal */
  streakStart = -1
  /** Bytes queued for sending. @internal */
  readonly queue = new ByteBlocks()
  /** End requested while bytes were still queued. @internal */
  finPending = false
  localDone = false
  remoteDone = false
  /** The peer's RESPONSE came (a stream this side opened): it comes once, before any DATA. @internal */
  responded = false
  /** Bytes the reader has not released yet (it returned false). @internal */
  heldBytes = 0
  private readonly host: StreamHost
  private reader: DataReader | null = null
  private buffered: Uint8Array[] = []
  private endBuffered = false
  private wantDrain = false
  private blocked = false

  constructor(id: number, host: StreamHost) {
    this.id = id
    this.host = host
  }

  /** Bytes queued for sending. @internal */
  get queuedBytes(): number {
    return this.queue.length
  }

  /** True once both directions ended or the stream was reset. */
  get closed(): boolean {
    return this.localDone && this.remoteDone
  }

  /**
   * Send the response head (the side that received OPEN). A body up to 64 KiB may ride inline. A
   * head beyond the limits of head-limits.ts cannot be sent: the stream is reset instead (check
   * the head first to answer with something better).
   */
  respond(head: ResponseHead, body?: Uint8Array, fin = false): void {
    if (this.localDone) return
    try {
      this.host.sendResponse(this, head, body, fin)
    } catch (err) {
      if (!(err instanceof RangeError)) throw err
      this.reset(RESET_CODE.internal, `the response cannot cross the tunnel: ${err.message}`)
      this.onReset?.(RESET_CODE.internal, err.message)
      return
    }
    if (fin) this.finishLocal()
  }

  /** Queue body bytes. Returns false when the queue is full: wait for `onDrain`. */
  write(chunk: Uint8Array): boolean {
    if (this.localDone || this.finPending) return false
    if (chunk.length > 0) {
      if (this.queue.length === 0) this.queue.keep(chunk)
      else this.queue.push(chunk)
      this.host.schedule(this)
    }
    if (this.queuedBytes >= STREAM_QUEUE_HIGH) {
      this.wantDrain = true
      return false
    }
    return true
  }

  /** End this side's direction once queued bytes are sent. */
  end(): void {
    if (this.localDone || this.finPending) return
    if (this.queuedBytes === 0) {
      this.host.sendFin(this)
      this.finishLocal()
    } else {
      this.finPending = true
    }
  }

  /** Abort the stream both ways and tell the peer why. */
  reset(code: ResetCode, reason: string): void {
    if (this.closed) return
    this.host.sendReset(this, code, reason)
    this.abandon()
  }

  /** Receive body bytes through `reader`; bytes that arrived earlier are delivered first. */
  read(reader: DataReader, onEnd?: () => void): void {
    this.reader = reader
    if (onEnd) this.onEnd = onEnd
    const pending = this.buffered
    this.buffered = []
    // Bytes buffered before a reader existed were held back from credit; count them afresh.
    this.heldBytes = 0
    this.blocked = false
    for (const chunk of pending) this.deliver(chunk)
    if (this.endBuffered) {
      this.endBuffered = false
      this.onEnd?.()
    }
  }

  /** Release bytes held back after the reader returned false. */
  resumeReading(): void {
    if (!this.blocked) return
    this.blocked = false
    const held = this.heldBytes
    this.heldBytes = 0
    if (held > 0) this.host.grant(this, held)
  }

  /**
   * Take up to `max` queued bytes for one DATA frame: as many queued pieces as fit, without
   * copying them, so the small pieces a local server's chunked reply arrives in travel together.
   * @internal
   */
  take(max: number): Uint8Array[] {
    const taken = Math.max(0, Math.min(max, this.queue.length))
    const parts = this.queue.take(taken)
    this.sendWindow -= taken
    if (this.wantDrain && this.queue.length < STREAM_QUEUE_HIGH / 2) {
      this.wantDrain = false
      queueMicrotask(() => this.onDrain?.())
    }
    return parts
  }

  /** True when a DATA frame could go out now, ignoring the connection window. @internal */
  get sendable(): boolean {
    return this.queuedBytes > 0 && this.sendWindow > 0
  }

  /** Largest next DATA chunk. @internal */
  nextChunkLimit(connectionCredit: number): number {
    return Math.min(MAX_CHUNK_BYTES, this.sendWindow, connectionCredit)
  }

  /** Incoming DATA. @internal */
  deliver(chunk: Uint8Array): void {
    if (chunk.length === 0) return
    if (!this.reader) {
      this.buffered.push(chunk)
      this.heldBytes += chunk.length
      this.blocked = true
      return
    }
    if (this.blocked) {
      this.heldBytes += chunk.length
      this.reader(chunk)
      return
    }
    if (this.reader(chunk) === false) {
      this.blocked = true
      this.heldBytes += chunk.length
    } else {
      this.host.grant(this, chunk.length)
    }
  }

  /**
   * The peer ended its direction. On a stream this side opened, that is the end of the answer:
   * what is left of the request is of no use to anyone, so what waits of its body is dropped and
   * the peer is told nothing more will come (RST `cancel`), as an HTTP/2 client stops sending a
   * request its server answered early (RFC 9113 §8.1). Before, a peer that answered without
   * reading the body (never granting credit for it) left the rest of it queued here for as long
   * as the connection lasted. @internal
   */
  remoteEnded(): void {
    this.remoteDone = true
    if (this.reader) this.onEnd?.()
    else this.endBuffered = true
    if (this.responded && !this.localDone) {
      this.queue.clear()
      this.host.sendReset(this, RESET_CODE.cancel, 'the answer is complete')
      this.finishLocal()
      return
    }
    if (this.closed) this.host.finished(this)
  }

  /** Our direction is finished. @internal */
  finishLocal(): void {
    this.localDone = true
    this.finPending = false
    this.localEnded()
    if (this.closed) this.host.finished(this)
  }

  /** Drop all state after a reset (sent or received). @internal */
  abandon(): void {
    this.localDone = true
    this.remoteDone = true
    this.localEnded()
    this.queue.clear()
    this.buffered = []
    this.host.finished(this)
  }

  private localEnded(): void {
    const cb = this.onLocalEnd
    this.onLocalEnd = null
    cb?.()
  }
}
