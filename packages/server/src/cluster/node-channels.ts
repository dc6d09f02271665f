/**
 * One tunnel connection's worth of flow control per tunnel on a node link. A link carries the
 * forwarded requests of every tunnel held by its peer; were they streams of one `TunnelMux`, they
 * would share its connection window (16 MiB each way), and a tenant whose agents left answers
 * unread (or whose client left request bodies unread) would hold all of it, stalling every other
 * tenant's traffic between the two nodes. On one node, each tunnel's client has a connection and
 * a window of its own. So a link carries channels: the node that forwards opens one per tunnel,
 * each its own `TunnelMux` with its own windows and stream ids, and every WebSocket message is
 * `[kind: u8][channel: u32 BE][tunnel frame]`.
 *
 * Channels are numbered upwards by the node that opens them; one idle for two heartbeats is
 * retired (`RETIRE`), and the other side drops it once its streams are over. A frame for a
 * channel already retired is ignored, so a credit still on its way cannot open a channel again.
 */
import { TunnelMux, type MuxStream, type ProtocolError, type RequestHead } from '@burrow/protocol'
import { WebSocket } from 'ws'

/** Message kinds. */
const FRAME = 0
const RETIRE = 1

/** Bytes before the tunnel frame. */
const PREFIX_BYTES = 5

/**
 * Bytes of a link's mux waiting to be written above which small pieces of DATA gather in their
 * stream's queue instead of going each as a message (transport-queue.ts): an answer relayed one
 * byte per frame to a peer whose socket is backed up made a message, an entry of the link's write
 * queue, per byte (up to the 1 MiB high-water mark's worth).
 */
export const NODE_LINK_GATHER_BYTES = 16 * 1024

/** What a link's channels do with what arrives. */
export interface ChannelsOptions {
  /** `opener`: this node forwards requests; `server`: it serves its peer's. */
  readonly side: 'opener' | 'server'
  /** A stream the peer opened (server side). */
  readonly onStream?: (
    stream: MuxStream,
    head: RequestHead,
    body: Uint8Array | undefined,
    fin: boolean,
  ) => void
  /** A peer's message this side cannot read: the link is to be closed. */
  readonly onProtocolError: (err: Error | ProtocolError) => void
}

interface Channel {
  readonly id: number
  readonly mux: TunnelMux
  /** Heartbeats seen in a row with no stream open. */
  idleBeats: number
  /** Server side: the opener retired it; dropped once its streams are over. */
  retired: boolean
}

/** The channels of one node link's WebSocket. */
export class LinkChannels {
  readonly #ws: WebSocket
  readonly #opts: ChannelsOptions
  readonly #byId = new Map<number, Channel>()
  /** Opener side: each tunnel's channel. */
  readonly #byTunnel = new Map<string, Channel>()
  /** The highest channel number given (opener) or seen (server). */
  #last = 0
  #closed = false

  constructor(ws: WebSocket, opts: ChannelsOptions) {
    this.#ws = ws
    this.#opts = opts
  }

  /** Channels open now. */
  get size(): number {
    return this.#byId.size
  }

  /** Open a stream for a request to `tunnelId` on its channel. Throws once the link closed. */
  open(tunnelId: string, head: RequestHead, body: Uint8Array | undefined, fin: boolean): MuxStream {
    if (this.#closed || this.#ws.readyState !== WebSocket.OPEN) {
      throw new Error('node link closed')
    }
    let channel = this.#byTunnel.get(tunnelId)
    if (channel === undefined) {
      channel = this.#channel((this.#last += 1))
      this.#byTunnel.set(tunnelId, channel)
    }
    channel.idleBeats = 0
    return channel.mux.open(head, body, fin)
  }

  /** Feed one binary WebSocket message. */
  receive(data: Buffer): void {
    if (this.#closed) return
    if (data.length < PREFIX_BYTES || data[0]! > RETIRE) {
      this.#opts.onProtocolError(new Error('a node link message without its channel'))
      return
    }
    const id = data.readUInt32BE(1)
    let channel = this.#byId.get(id)
    if (data[0] === RETIRE) {
      if (channel === undefined || this.#opts.side !== 'server') return
      channel.retired = true
      this.#dropIfIdle(channel)
      return
    }
    if (channel === undefined) {
      // A channel retired, or (server side) a new one: numbers only go up.
      if (this.#opts.side !== 'server' || id <= this.#last) return
      this.#last = id
      channel = this.#channel(id)
    }
    channel.mux.receive(data.subarray(PREFIX_BYTES))
  }

  /** A heartbeat: retire channels idle since the last one (opener), drop retired ones (server). */
  beat(): void {
    for (const channel of [...this.#byId.values()]) {
      if (this.#opts.side === 'server') {
        if (channel.retired) this.#dropIfIdle(channel)
        continue
      }
      if (channel.mux.streamCount > 0) {
        channel.idleBeats = 0
        continue
      }
      if ((channel.idleBeats += 1) < 2) continue
      for (const [tunnelId, c] of this.#byTunnel) if (c === channel) this.#byTunnel.delete(tunnelId)
      this.#byId.delete(channel.id)
      channel.mux.close('node link channel retired')
      if (this.#ws.readyState === WebSocket.OPEN) this.#send(RETIRE, channel.id, new Uint8Array(0))
    }
  }

  /** The link closed: every stream of every channel is reset locally. */
  close(reason: string): void {
    if (this.#closed) return
    this.#closed = true
    for (const channel of this.#byId.values()) channel.mux.close(reason)
    this.#byId.clear()
    this.#byTunnel.clear()
  }

  #dropIfIdle(channel: Channel): void {
    if (channel.mux.streamCount > 0) return
    this.#byId.delete(channel.id)
    channel.mux.close('node link channel retired')
  }

  #channel(id: number): Channel {
    const mux = new TunnelMux({
      role: this.#opts.side === 'opener' ? 'broker' : 'client',
      gatherAboveBytes: NODE_LINK_GATHER_BYTES,
      // The bound on bodiless frames waiting to be written cuts off a tunnel client that reads
      // nothing. Here they are one tenant's (an OPEN without body, a reset, an end per request):
      // a tunnel's client gone with 10,000 forwarded requests in flight reset them all in one
      // turn, and the channel's failure closed the link, resetting every tenant's requests
      // between the two nodes (found by a hostile review). A peer node that reads nothing is
      // dropped by the link's heartbeat.
      maxQueuedControlFrames: Infinity,
      transport: {
        send: (bytes, done) => {
          if (this.#ws.readyState === WebSocket.OPEN) this.#send(FRAME, id, bytes, done)
          else done?.(new Error('node link closed'))
        },
      },
      ...(this.#opts.onStream ? { onOpen: this.#opts.onStream } : {}),
      onProtocolError: (err) => this.#opts.onProtocolError(err),
    })
    const channel: Channel = { id, mux, idleBeats: 0, retired: false }
    this.#byId.set(id, channel)
    return channel
  }

  #send(kind: number, id: number, bytes: Uint8Array, done?: (err?: Error) => void): void {
    const message = Buffer.allocUnsafe(PREFIX_BYTES + bytes.length)
    message[0] = kind
    message.writeUInt32BE(id, 1)
    message.set(bytes, PREFIX_BYTES)
    this.#ws.send(message, { binary: true }, done)
  }
}
