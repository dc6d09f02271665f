/**
 * Multiplexes HTTP-shaped streams over one tunnel connection (the broker's and the CLI's side use
 * the same class). It owns the stream table, both credit windows, the round-robin DATA scheduler
 * and backpressure against the transport. It does no I/O itself: bytes go out through
 * `MuxTransport.send` and come in through `receive`.
 */
import { decodeFrame, encodeData, encodeFrame } from '../frame-codec.js'
import {
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
import { streamCredit } from './stream-credit.js'

/**
 * Where frames go. `done` fires when the bytes were handed to the socket: after it, the
 * transport must not read `frame` again (a mux with `reuseBuffers` writes the next frame there).
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

/** One tunnel connection's streams. */
export class TunnelMux implements StreamHost {
  private readonly opts: TunnelMuxOptions
  private readonly streams = new Map<number, MuxStream>()
  private readonly ready = new Set<MuxStream>()
  private nextLocalId: number
  private lastRemoteId = 0
  private sendWindow = INITIAL_CONNECTION_WINDOW
  private recvWindow = INITIAL_CONNECTION_WINDOW
  private recvUnacked = 0
  private inflight = 0
  private pumping = false
  private pumpScheduled = false
  private dead = false
  private readonly highWater: number
  private readonly clock: () => number
  private readonly onSent = (size: number) => () => this.sent(size)
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

  /** Open a stream with a request head; a body up to 64 KiB may ride inline. */
  open(head: RequestHead, body?: Uint8Array, fin = false): MuxStream {
    if (this.dead) throw new Error('tunnel connection is closed')
    const id = this.nextLocalId
    this.nextLocalId += 2
    const stream = new MuxStream(id, this)
    this.streams.set(id, stream)
    this.sendFrame(
      { type: 'open', streamId: id, head, ...(body ? { body } : {}), fin },
      body?.length ?? 0,
    )
    if (fin) stream.finishLocal()
    return stream
  }

  /** Send a connection-level frame (hello, welcome, goaway, ping). */
  control(frame: Frame): void {
    if (!this.dead) this.opts.transport.send(encodeFrame(frame))
  }

  /** Feed one received WebSocket message. Protocol violations end the mux. */
  receive(bytes: Uint8Array): void {
    if (this.dead) return
    try {
      this.dispatch(decodeFrame(bytes))
    } catch (err) {
      if (!(err instanceof ProtocolError)) throw err
      this.fail(err)
    }
  }

  /** The connection is gone: every open stream is reset locally. */
  close(reason = 'tunnel connection closed'): void {
    if (this.dead) return
    this.dead = true
    for (const stream of [...this.streams.values()]) {
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

  private dispatch(frame: Frame): void {
    switch (frame.type) {
      case 'open':
        return this.onOpenFrame(frame.streamId, frame.head, frame.body, frame.fin)
      case 'response': {
        const stream = this.known(frame.streamId, frame.body?.length ?? 0)
        if (!stream) return
        if (stream.id % 2 !== this.nextLocalId % 2)
          throw new ProtocolError('bad_stream', 'RESPONSE on a stream the peer opened')
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
    const peerParity = this.opts.role === 'broker' ? 0 : 1
    if (id % 2 !== peerParity || id <= this.lastRemoteId) {
      throw new ProtocolError(
        'bad_stream',
        `OPEN on stream ${id} is out of order or of the wrong side`,
      )
    }
    if (this.opts.role === 'broker')
      throw new ProtocolError('bad_stream', 'clients may not open streams')
    this.lastRemoteId = id
    const stream = new MuxStream(id, this)
    this.streams.set(id, stream)
    if (body) this.recvData(stream, body, true)
    if (fin) stream.remoteDone = true
    if (this.opts.onOpen) this.opts.onOpen(stream, head, body, fin)
    else stream.reset(RESET_CODE.refused, 'this side accepts no streams')
  }

  /** The stream for an id, or undefined for a stream that already closed (its bytes are credited). */
  private known(id: number, bytes: number): MuxStream | undefined {
    const stream = this.streams.get(id)
    if (stream) return stream
    const local = id % 2 === this.nextLocalId % 2
    const seen = local ? id < this.nextLocalId : id <= this.lastRemoteId
    if (!seen)
      throw new ProtocolError('bad_stream', `frame for stream ${id}, which was never opened`)
    if (bytes > 0) this.creditConnection(bytes)
    return undefined
  }

  /** Account for received body bytes; inline bodies are bounded by the frame size instead. */
  private recvData(stream: MuxStream, chunk: Uint8Array, inline: boolean): void {
    if (stream.remoteDone)
      throw new ProtocolError('bad_stream', `data after end of stream ${stream.id}`)
    if (inline || chunk.length === 0) return
    if (chunk.length > stream.recvWindow || chunk.length > this.recvWindow) {
      throw new ProtocolError(
        'flow_control',
        `stream ${stream.id} sent ${chunk.length} bytes beyond its window`,
      )
    }
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
      throw new ProtocolError('flow_control', 'stream window overflow')
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
    const credit = streamCredit(stream, this.clock)
    if (credit === 0) return
    stream.recvWindow += credit
    this.control({ type: 'window', streamId: stream.id, credit })
  }

  /** @internal */
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
    const bytes = encodeFrame(frame)
    if (bodyBytes > 0) {
      this.inflight += bytes.length
      this.opts.transport.send(bytes, this.onSent(bytes.length))
    } else {
      this.opts.transport.send(bytes)
    }
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
