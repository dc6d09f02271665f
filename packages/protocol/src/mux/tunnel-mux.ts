/**
 * Multiplexes HTTP-shaped streams over one tunnel connection (the broker's and the CLI's side use
 * the same class). It owns the stream table, both credit windows, the round-robin DATA scheduler
 * and backpressure against the transport. It does no I/O itself: bytes go out through
 * `MuxTransport.send` and come in through `receive`.
 */
import { decodeFrame, encodeData, encodeFrame } from '../frame-codec.js'
import {
  FRAME_TYPE,
  INITIAL_CONNECTION_WINDOW,
  RESET_CODE,
  type Frame,
  type RequestHead,
  type ResetCode,
  type ResponseHead,
} from '../frame.js'
import { ProtocolError } from '../protocol-error.js'
import { returnFrameBuffer, takeFrameBuffer } from './frame-buffers.js'
import { MuxStream, type StreamHost } from './mux-stream.js'
import { streamCredit, WindowMemory } from './stream-credit.js'
import { StreamTable } from './stream-table.js'

/**
 * Where frames go. The transport calls `done` once the bytes were handed to the socket (or
 * failed): after it, the transport must not read `frame` again (a mux with `reuseBuffers` writes
 * the next frame there). The mux counts frames whose `done` has not come as unread by the peer,
 * so a transport must call it for every frame it is given one for.
 */
export interface MuxTransport {
  send(frame: Uint8Array, done?: (err?: Error) => void): void
}

/** Which end of the tunnel this mux is: the broker opens odd streams, the client even ones. */
export type MuxRole = 'broker' | 'client'

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
   * window or after its end): that stream was reset, the connection carries on. For logging.
   */
  readonly onStreamError?: (err: ProtocolError) => void
  /** Pause sending DATA while this many bytes wait in the transport. */
  readonly highWaterBytes?: number
  /** Milliseconds from some fixed point, for window growth; `performance.now` by default. */
  readonly clock?: () => number
  /**
   * Encode DATA into pooled buffers, reused once the transport calls `done` (see
   * frame-buffers.ts). Only for a transport that keeps to `done`'s contract, as a WebSocket does.
   */
  readonly reuseBuffers?: boolean
}

const HALF_CONNECTION = INITIAL_CONNECTION_WINDOW / 2
const MAX_WINDOW = 2 ** 31 - 1

/**
 * Frames without a body (PONG, WINDOW, RST, an empty FIN) that may wait in the transport at once.
 * A peer that keeps sending PINGs or resets but never reads what they make us answer would
 * otherwise grow our write queue without bound; past this many it is cut off.
 */
export const MAX_QUEUED_CONTROL_FRAMES = 10_000

/** One tunnel connection's streams. */
export class TunnelMux implements StreamHost {
  private readonly opts: TunnelMuxOptions
  private readonly streams = new StreamTable()
  private readonly ready = new Set<MuxStream>()
  /** The largest stream window a reader earned on this connection (stream-credit.ts). */
  private readonly windowMemory = new WindowMemory()
  private nextLocalId: number
  private lastRemoteId = 0
  private sendWindow = INITIAL_CONNECTION_WINDOW
  private recvWindow = INITIAL_CONNECTION_WINDOW
  private recvUnacked = 0
  private inflight = 0
  /** Bodiless frames handed to the transport and not yet written out. */
  private queuedControl = 0
  private pumping = false
  private pumpScheduled = false
  private dead = false
  private readonly highWater: number
  private readonly clock: () => number
  private readonly onSent = (size: number) => () => this.sent(size)
  private readonly onControlSent = (): void => {
    this.queuedControl--
  }
  private readonly deferredPump = (): void => {
    this.pumpScheduled = false
    this.pump()
  }

  constructor(opts: TunnelMuxOptions) {
    this.opts = opts
    this.nextLocalId = opts.role === 'broker' ? 1 : 2
    this.highWater = opts.highWaterBytes ?? 1024 * 1024
    this.clock = opts.clock ?? (() => performance.now())
  }

  /** Streams currently open. */
  get streamCount(): number {
    return this.streams.size
  }

  /** Bytes handed to the transport and not yet written out. */
  get bufferedBytes(): number {
    return this.inflight
  }

  /**
   * Open a stream with a request head; a body up to 64 KiB may ride inline. Throws RangeError,
   * opening nothing, for a head beyond the limits of head-limits.ts (check it first to refuse
   * such a request cleanly).
   */
  open(head: RequestHead, body?: Uint8Array, fin = false): MuxStream {
    if (this.dead) throw new Error('tunnel connection is closed')
    const id = this.nextLocalId
    const bytes = encodeFrame({ type: 'open', streamId: id, head, ...(body ? { body } : {}), fin })
    this.nextLocalId += 2
    const stream = new MuxStream(id, this)
    this.streams.set(stream)
    this.sendEncoded(bytes, body?.length ?? 0)
    if (fin) stream.finishLocal()
    return stream
  }

  /** Send a connection-level frame (hello, welcome, goaway, ping). */
  control(frame: Frame): void {
    if (!this.dead) this.sendEncoded(encodeFrame(frame), 0)
  }

  /**
   * Feed one received WebSocket message. A violation by one stream resets that stream; any other
   * ends the mux.
   */
  receive(bytes: Uint8Array): void {
    if (this.dead) return
    try {
      this.dispatch(decodeFrame(bytes))
    } catch (err) {
      if (!(err instanceof ProtocolError)) throw err
      if (err.streamId === 0 || !this.streamError(err, bytes[0] === FRAME_TYPE.open)) this.fail(err)
    }
  }

  /** The connection is gone: every open stream is reset locally. */
  close(reason = 'tunnel connection closed'): void {
    if (this.dead) return
    this.dead = true
    for (const stream of this.streams.values()) {
      stream.abandon()
      stream.onReset?.(RESET_CODE.internal, reason)
    }
    this.streams.clear()
    this.ready.clear()
  }

  private fail(err: ProtocolError): void {
    this.close(`protocol error: ${err.message}`)
    this.opts.onProtocolError?.(err)
  }

  /**
   * Reset the stream a faulty frame belongs to, telling the peer why. False when the frame is not
   * one stream's problem after all (an OPEN out of order, a stream never opened): the connection
   * must end then.
   */
  private streamError(err: ProtocolError, opening: boolean): boolean {
    const id = err.streamId
    const reason = `protocol error: ${err.message}`.slice(0, 1024)
    if (opening) {
      if (!this.acceptsOpen(id)) {
        this.fail(
          new ProtocolError(
            'bad_stream',
            `OPEN on stream ${id} is out of order or of the wrong side`,
          ),
        )
        return true
      }
      // The stream is refused before it exists; its id is used up, as an accepted one would be.
      this.lastRemoteId = id
      this.sendEncoded(
        encodeFrame({ type: 'rst', streamId: id, code: RESET_CODE.protocol, reason }),
        0,
      )
    } else {
      const stream = this.streams.get(id)
      if (stream) {
        stream.reset(RESET_CODE.protocol, reason)
        stream.onReset?.(RESET_CODE.protocol, reason)
      } else if (!this.seen(id)) {
        return false
      }
    }
    this.opts.onStreamError?.(err)
    return true
  }

  /** Whether the peer may open stream `id` now: its parity, in order, and only towards a client. */
  private acceptsOpen(id: number): boolean {
    const peerParity = this.opts.role === 'broker' ? 0 : 1
    return this.opts.role === 'client' && id % 2 === peerParity && id > this.lastRemoteId
  }

  /** Whether stream `id` was opened at some point, by either side. */
  private seen(id: number): boolean {
    const local = id % 2 === this.nextLocalId % 2
    return local ? id < this.nextLocalId : id <= this.lastRemoteId
  }

  private dispatch(frame: Frame): void {
    switch (frame.type) {
      case 'open':
        return this.onOpenFrame(frame.streamId, frame.head, frame.body, frame.fin)
      case 'response': {
        const stream = this.known(frame.streamId, frame.body?.length ?? 0)
        if (!stream) return
        if (stream.id % 2 !== this.nextLocalId % 2)
          throw new ProtocolError('bad_stream', 'RESPONSE on a stream the peer opened', stream.id)
        if (frame.body) this.recvData(stream, frame.body, true)
        stream.onResponse?.(frame.head, frame.body, frame.fin)
        if (frame.fin) stream.remoteEnded()
        return
      }
      case 'data': {
        const stream = this.known(frame.streamId, frame.chunk.length)
        if (!stream) return
        this.recvData(stream, frame.chunk, false)
        stream.deliver(frame.chunk)
        if (frame.fin) stream.remoteEnded()
        return
      }
      case 'window':
        return this.onWindow(frame.streamId, frame.credit)
      case 'rst': {
        const stream = this.known(frame.streamId, 0)
        if (!stream) return
        stream.abandon()
        stream.onReset?.(frame.code, frame.reason)
        return
      }
      case 'ping':
        return this.control({ type: 'pong', payload: frame.payload })
      default:
        this.opts.onControl?.(frame)
    }
  }

  private onOpenFrame(
    id: number,
    head: RequestHead,
    body: Uint8Array | undefined,
    fin: boolean,
  ): void {
    if (this.opts.role === 'broker')
      throw new ProtocolError('bad_stream', 'clients may not open streams')
    if (!this.acceptsOpen(id)) {
      throw new ProtocolError(
        'bad_stream',
        `OPEN on stream ${id} is out of order or of the wrong side`,
      )
    }
    this.lastRemoteId = id
    const stream = new MuxStream(id, this)
    this.streams.set(stream)
    if (body) this.recvData(stream, body, true)
    if (fin) stream.remoteDone = true
    if (this.opts.onOpen) this.opts.onOpen(stream, head, body, fin)
    else stream.reset(RESET_CODE.refused, 'this side accepts no streams')
  }

  /** The stream for an id, or undefined for a stream that already closed (its bytes are credited). */
  private known(id: number, bytes: number): MuxStream | undefined {
    const stream = this.streams.get(id)
    if (stream) return stream
    if (!this.seen(id))
      throw new ProtocolError('bad_stream', `frame for stream ${id}, which was never opened`)
    if (bytes > 0) this.creditConnection(bytes)
    return undefined
  }

  /**
   * Account for received body bytes; inline bodies are bounded by the frame size instead. Bytes
   * beyond the connection's window end the connection; beyond the stream's, or after its end,
   * only the stream (their connection credit is given back: the peer counted them as sent).
   */
  private recvData(stream: MuxStream, chunk: Uint8Array, inline: boolean): void {
    if (!inline && chunk.length > this.recvWindow) {
      throw new ProtocolError(
        'flow_control',
        `${chunk.length} bytes on stream ${stream.id} exceed the connection's window`,
      )
    }
    let problem: ProtocolError | null = null
    if (stream.remoteDone) {
      problem = new ProtocolError('bad_stream', `data after end of stream ${stream.id}`, stream.id)
    } else if (!inline && chunk.length > stream.recvWindow) {
      problem = new ProtocolError(
        'flow_control',
        `stream ${stream.id} sent ${chunk.length} bytes beyond its window`,
        stream.id,
      )
    }
    if (problem) {
      if (!inline) this.creditConnection(chunk.length)
      throw problem
    }
    if (inline || chunk.length === 0) return
    stream.recvWindow -= chunk.length
    this.recvWindow -= chunk.length
  }

  private onWindow(id: number, credit: number): void {
    if (id === 0) {
      if (this.sendWindow + credit > MAX_WINDOW)
        throw new ProtocolError('flow_control', 'connection window overflow')
      this.sendWindow += credit
      if (this.ready.size > 0) this.pump()
      return
    }
    const stream = this.known(id, 0)
    if (!stream) return
    if (stream.sendWindow + credit > MAX_WINDOW)
      throw new ProtocolError('flow_control', 'stream window overflow', id)
    stream.sendWindow += credit
    this.schedule(stream)
  }

  private creditConnection(bytes: number): void {
    this.recvUnacked += bytes
    if (this.recvUnacked >= HALF_CONNECTION) {
      this.recvWindow += this.recvUnacked
      this.control({ type: 'window', streamId: 0, credit: this.recvUnacked })
      this.recvUnacked = 0
    }
  }

  // StreamHost: called by streams.

  /**
   * The reader consumed `bytes` of a stream: credit the connection, and the stream once half of
   * its window was consumed, growing the window for a reader that keeps up (stream-credit.ts).
   * @internal
   */
  grant(stream: MuxStream, bytes: number): void {
    this.creditConnection(bytes)
    if (stream.remoteDone || !this.streams.has(stream.id)) return
    const credit = streamCredit(stream, this.clock, this.windowMemory)
    if (credit === 0) return
    stream.recvWindow += credit
    this.control({ type: 'window', streamId: stream.id, credit })
  }

  /**
   * Throws RangeError, sending nothing, for a head beyond the limits (MuxStream.respond turns it
   * into a reset of the stream).
   * @internal
   */
  sendResponse(
    stream: MuxStream,
    head: ResponseHead,
    body: Uint8Array | undefined,
    fin: boolean,
  ): void {
    this.sendFrame(
      { type: 'response', streamId: stream.id, head, ...(body ? { body } : {}), fin },
      body?.length ?? 0,
    )
  }

  /**
   * A stream has bytes to send. DATA leaves at the end of the event-loop turn, not at once, so
   * that everything a stream was given during the turn (a local server's reply often arrives in
   * several small pieces per read) fills one frame instead of one frame per piece.
   * @internal
   */
  schedule(stream: MuxStream): void {
    if (!stream.sendable) return
    this.ready.add(stream)
    if (this.pumpScheduled) return
    this.pumpScheduled = true
    setImmediate(this.deferredPump)
  }

  /** @internal */
  sendFin(stream: MuxStream): void {
    this.sendFrame({ type: 'data', streamId: stream.id, chunk: new Uint8Array(0), fin: true }, 0)
  }

  /** @internal */
  sendReset(stream: MuxStream, code: ResetCode, reason: string): void {
    this.sendFrame({ type: 'rst', streamId: stream.id, code, reason }, 0)
  }

  /** @internal */
  finished(stream: MuxStream): void {
    if (this.streams.get(stream.id) !== stream) return
    this.streams.delete(stream.id)
    this.ready.delete(stream)
    if (stream.heldBytes > 0) {
      this.creditConnection(stream.heldBytes)
      stream.heldBytes = 0
    }
  }

  private sendFrame(frame: Frame, bodyBytes: number): void {
    if (this.dead) return
    this.sendEncoded(encodeFrame(frame), bodyBytes)
  }

  /**
   * Hand an encoded frame to the transport. Frames with a body count towards the bytes in flight
   * (DATA pauses behind them); bodiless ones towards the control-frame bound.
   */
  private sendEncoded(bytes: Uint8Array, bodyBytes: number): void {
    if (this.dead) return
    if (bodyBytes > 0) {
      this.inflight += bytes.length
      this.opts.transport.send(bytes, this.onSent(bytes.length))
      return
    }
    if (this.queuedControl >= MAX_QUEUED_CONTROL_FRAMES) {
      this.fail(
        new ProtocolError(
          'flood',
          `the peer left ${MAX_QUEUED_CONTROL_FRAMES} control frames unread (PONG, WINDOW, RST)`,
        ),
      )
      return
    }
    this.queuedControl++
    this.opts.transport.send(bytes, this.onControlSent)
  }

  /** `size` bytes of DATA left through the transport: more may follow. */
  private sent(size: number): void {
    this.inflight -= size
    if (this.inflight <= this.highWater / 4 && this.ready.size > 0) this.pump()
  }

  private sendData(id: number, parts: readonly Uint8Array[], size: number, fin: boolean): void {
    if (this.dead) return
    if (!this.opts.reuseBuffers || size === 0) {
      const bytes = encodeData(id, parts, fin)
      this.inflight += bytes.length
      this.opts.transport.send(bytes, this.onSent(bytes.length))
      return
    }
    const pooled = takeFrameBuffer()
    const bytes = encodeData(id, parts, fin, pooled)
    const length = bytes.length
    this.inflight += length
    this.opts.transport.send(bytes, () => {
      returnFrameBuffer(pooled)
      this.sent(length)
    })
  }

  /** Send DATA round-robin across ready streams while credit and transport room last. */
  private pump(): void {
    if (this.pumping || this.dead) return
    this.pumping = true
    try {
      for (const stream of this.ready) {
        if (this.inflight >= this.highWater || this.sendWindow <= 0) break
        this.ready.delete(stream)
        if (!stream.sendable || stream.localDone) continue
        const limit = stream.nextChunkLimit(this.sendWindow)
        const before = stream.queuedBytes
        const parts = stream.take(limit)
        const size = before - stream.queuedBytes
        this.sendWindow -= size
        const fin = stream.finPending && stream.queuedBytes === 0
        this.sendData(stream.id, parts, size, fin)
        if (fin) stream.finishLocal()
        else if (stream.sendable) this.ready.add(stream)
      }
    } finally {
      this.pumping = false
    }
  }
}
