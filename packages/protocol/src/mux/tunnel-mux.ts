/**
 * Multiplexes HTTP-shaped streams over one tunnel connection (the broker's and the CLI's side use
 * the same class). It owns the stream table, both credit windows and the round-robin DATA
 * scheduler; the stream ids' rules are in stream-ids.ts, what waits in the transport
 * (backpressure, the bound on unread control frames, small DATA gathering) in transport-queue.ts.
 * It does no I/O itself: bytes go out through `MuxTransport.send` and come in through `receive`.
 */
import { decodeFrame, encodeFrame } from '../frame-codec.js'
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
import { MuxStream, type StreamHost } from './mux-stream.js'
import { ReceiveWindow } from './receive-window.js'
import { streamCredit, WindowMemory } from './stream-credit.js'
import { StreamTable } from './stream-table.js'
import { StreamIds } from './stream-ids.js'
import { TransportQueue } from './transport-queue.js'
import type { TunnelMuxOptions } from './tunnel-mux-options.js'

export { MAX_QUEUED_CONTROL_FRAMES, type MuxTransport } from './transport-queue.js'
export type { MuxRole } from './stream-ids.js'
export type { TunnelMuxOptions } from './tunnel-mux-options.js'

const MAX_WINDOW = 2 ** 31 - 1

/** One tunnel connection's streams. */
export class TunnelMux implements StreamHost {
  private readonly opts: TunnelMuxOptions
  private readonly streams = new StreamTable()
  private readonly ready = new Set<MuxStream>()
  /** The largest stream window a reader earned on this connection (stream-credit.ts). */
  private readonly windowMemory = new WindowMemory()
  private readonly ids: StreamIds
  private sendWindow = INITIAL_CONNECTION_WINDOW
  private readonly recv = new ReceiveWindow()
  private readonly queue: TransportQueue
  private pumping = false
  private pumpScheduled = false
  private dead = false
  private readonly clock: () => number
  private readonly deferredPump = (): void => {
    this.pumpScheduled = false
    this.pump()
  }

  constructor(opts: TunnelMuxOptions) {
    this.opts = opts
    this.ids = new StreamIds(opts.role)
    this.clock = opts.clock ?? (() => performance.now())
    this.queue = new TransportQueue({
      transport: opts.transport,
      highWater: opts.highWaterBytes ?? 1024 * 1024,
      gatherAbove: opts.gatherAboveBytes,
      reuseBuffers: opts.reuseBuffers ?? false,
      ...(opts.maxQueuedControlFrames !== undefined
        ? { maxQueuedControl: opts.maxQueuedControlFrames }
        : {}),
      onRoom: () => {
        if (this.ready.size > 0) this.pump()
      },
      onFlood: (err) => this.fail(err),
    })
  }

  /** Streams currently open. */
  get streamCount(): number {
    return this.streams.size
  }

  /** Body bytes this side's streams queued and have not sent yet (they wait for credit). */
  get queuedBytes(): number {
    return this.streams.values().reduce((n, stream) => n + stream.queuedBytes, 0)
  }

  /** Bytes handed to the transport and not yet written out. */
  get bufferedBytes(): number {
    return this.queue.bufferedBytes
  }

  /**
   * Open a stream with a request head; a body up to 64 KiB may ride inline. Throws RangeError,
   * opening nothing, for a head beyond the limits of head-limits.ts (check it first to refuse
   * such a request cleanly).
   */
  open(head: RequestHead, body?: Uint8Array, fin = false): MuxStream {
    if (this.dead) throw new Error('tunnel connection is closed')
    const id = this.ids.takeLocal()
    const bytes = encodeFrame({ type: 'open', streamId: id, head, ...(body ? { body } : {}), fin })
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

  /** Feed one received WebSocket message. A stream's violation resets it; any other ends the mux. */
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
      if (!this.ids.acceptsOpen(id)) {
        this.fail(
          new ProtocolError(
            'bad_stream',
            `OPEN on stream ${id} is out of order or of the wrong side`,
          ),
        )
        return true
      }
      // The stream is refused before it exists; its id is used up, as an accepted one would be.
      this.ids.remoteOpened(id)
      this.sendEncoded(
        encodeFrame({ type: 'rst', streamId: id, code: RESET_CODE.protocol, reason }),
        0,
      )
    } else {
      const stream = this.streams.get(id)
      if (!stream) return this.ids.seen(id) // a closed stream's: dropped, nothing to report
      stream.reset(RESET_CODE.protocol, reason)
      stream.onReset?.(RESET_CODE.protocol, reason)
    }
    this.opts.onStreamError?.(err)
    return true
  }

  private dispatch(frame: Frame): void {
    switch (frame.type) {
      case 'open':
        return this.onOpenFrame(frame.streamId, frame.head, frame.body, frame.fin)
      case 'response': {
        // An inline body never counted against a window: a closed stream's is not credited.
        const stream = this.known(frame.streamId, 0)
        if (!stream) return
        if (!this.ids.isLocal(stream.id))
          throw new ProtocolError('bad_stream', 'RESPONSE on a stream the peer opened', stream.id)
        if (stream.responded)
          throw new ProtocolError('bad_stream', 'a second RESPONSE on the stream', stream.id)
        stream.responded = true
        if (frame.body) this.recvData(stream, frame.body, true)
        stream.onResponse?.(frame.head, frame.body, frame.fin)
        if (frame.fin) stream.remoteEnded()
        return
      }
      case 'data': {
        const stream = this.known(frame.streamId, frame.chunk.length)
        if (!stream) return
        if (!stream.responded && this.ids.isLocal(stream.id))
          throw new ProtocolError('bad_stream', 'DATA before the RESPONSE', stream.id)
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
    if (!this.ids.acceptsOpen(id)) {
      throw new ProtocolError(
        'bad_stream',
        `OPEN on stream ${id} is out of order or of the wrong side`,
      )
    }
    this.ids.remoteOpened(id)
    const stream = new MuxStream(id, this)
    this.streams.set(stream)
    if (body) this.recvData(stream, body, true)
    if (fin) stream.remoteDone = true
    if (this.opts.onOpen) this.opts.onOpen(stream, head, body, fin)
    else stream.reset(RESET_CODE.refused, 'this side accepts no streams')
  }

  /**
   * The stream for an id, or undefined for a stream that already closed: its DATA bytes (`bytes`)
   * are counted against the connection's window, then credited back (the peer spent credit on them).
   */
  private known(id: number, bytes: number): MuxStream | undefined {
    const stream = this.streams.get(id)
    if (stream) return stream
    if (!this.ids.seen(id))
      throw new ProtocolError('bad_stream', `frame for stream ${id}, which was never opened`)
    if (bytes > 0) {
      this.recv.take(bytes, id)
      this.creditConnection(bytes)
    }
    return undefined
  }

  /**
   * Account for received body bytes; inline bodies are bounded by the frame size instead. Bytes
   * beyond the connection's window end the connection; beyond the stream's, or after its end,
   * only the stream (their connection credit is given back: the peer counted them as sent).
   */
  private recvData(stream: MuxStream, chunk: Uint8Array, inline: boolean): void {
    if (!inline) this.recv.take(chunk.length, stream.id)
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
    if (!inline) stream.recvWindow -= chunk.length
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
    const credit = this.recv.give(bytes)
    if (credit > 0) this.control({ type: 'window', streamId: 0, credit })
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
   * A stream has bytes to send. DATA leaves at the end of the event-loop turn, not at once, so that
   * what a stream was given during the turn (a local server's reply often arrives in several small
   * pieces per read) fills one frame instead of one frame per piece. @internal
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

  /** Hand an encoded frame to the transport (transport-queue.ts). */
  private sendEncoded(bytes: Uint8Array, bodyBytes: number): void {
    if (!this.dead) this.queue.send(bytes, bodyBytes)
  }

  /** Send DATA round-robin across ready streams while credit and transport room last. */
  private pump(): void {
    if (this.pumping || this.dead) return
    this.pumping = true
    try {
      for (const stream of this.ready) {
        if (this.dead || this.queue.full || this.sendWindow <= 0) break
        const limit = stream.nextChunkLimit(this.sendWindow)
        // A small piece waits, gathering, while the transport is backed up (transport-queue.ts).
        if (stream.sendable && this.queue.holds(stream.id, limit, stream.queuedBytes)) continue
        this.ready.delete(stream)
        if (!stream.sendable || stream.localDone) continue
        const before = stream.queuedBytes
        const parts = stream.take(limit)
        const size = before - stream.queuedBytes
        this.sendWindow -= size
        const fin = stream.finPending && stream.queuedBytes === 0
        this.queue.sendData(stream.id, parts, size, fin)
        if (fin) stream.finishLocal()
        else if (stream.sendable) this.ready.add(stream)
      }
    } finally {
      this.pumping = false
    }
  }
}
