/**
 * Persistent, authenticated connections between burrowd nodes, speaking the tunnel frames: a
 * node that receives a public request for a tunnel held elsewhere opens a stream on its link to
 * the holder (`link(url)`, one WebSocket per peer, opened on first use and again after a loss),
 * and the holder relays it into the tunnel (`handleUpgrade` accepts peers at `NODE_CHANNELS_PATH`,
 * checking their token). Each tunnel's requests go on a channel of their own, with the flow
 * control of a tunnel connection (node-channels.ts), so that one tenant's unread streams cannot
 * hold the link's window. Streams carry requests exactly as the tunnel does: streaming both ways,
 * SSE event by event, flow control, cancellation. Both ends ping every link; one that leaves two
 * pings unanswered (a peer that crashed hard or is cut off without its socket closing) is dropped,
 * which ends its streams and makes the next request open a new link.
 */
import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import {
  MAX_FRAME_BYTES,
  TunnelMux,
  type Logger,
  type MuxStream,
  type RequestHead,
} from '@burrow/protocol'
import { LinkChannels, NODE_LINK_GATHER_BYTES } from './node-channels.js'
import { WebSocket, WebSocketServer } from 'ws'
import { rejectUpgrade } from '../broker/reject-upgrade.js'
import { NodeTokenNonces, signNodeToken, verifyNodeToken } from './node-auth.js'

/**
 * The path of links without channels, where every tunnel's streams share one window: nodes of
 * earlier versions open them, and they are still served, so that their requests reach this node
 * during a rolling upgrade.
 */
export const NODE_LINK_PATH = '/_burrow/nodes'

/** The path peers connect to on the service host: links with a channel per tunnel. */
export const NODE_CHANNELS_PATH = '/_burrow/nodes/channels'

/** Whether `path` is one where peers open node links. */
export function isNodeLinkPath(path: string): boolean {
  return path === NODE_LINK_PATH || path === NODE_CHANNELS_PATH
}

/** Least time between two log lines about refused links. */
const REFUSAL_LOG_MS = 60_000

/** The largest message on a link: a tunnel frame and its channel. */
const MAX_LINK_MESSAGE_BYTES = MAX_FRAME_BYTES + 8

/** Default period of the links' heartbeat. */
const HEARTBEAT_MS = 10_000

/** Options of `new NodeLinks`. */
export interface NodeLinksOptions {
  readonly nodeId: string
  /** The cluster secret (shared through the database). */
  readonly secret: string
  readonly log: Logger
  /** A peer forwarded a request: relay `stream` to the tunnel its head names. */
  readonly onStream: (
    stream: MuxStream,
    head: RequestHead,
    body: Uint8Array | undefined,
    fin: boolean,
  ) => void
  /** Milliseconds between pings on every link (default 10 s); two unanswered drop the link. */
  readonly heartbeatMs?: number
}

interface Outgoing {
  readonly ws: WebSocket
  readonly channels: LinkChannels
  readonly ready: Promise<LinkChannels>
}

/** This node's links to its peers, both ways. */
export class NodeLinks {
  readonly #opts: NodeLinksOptions
  readonly #out = new Map<string, Outgoing>()
  /** Links peers opened, with their channels (none on a link of an earlier version). */
  readonly #in = new Map<WebSocket, LinkChannels | null>()
  readonly #wss = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    maxPayload: MAX_LINK_MESSAGE_BYTES,
    clientTracking: false,
  })
  #closed = false
  /** Tokens already used: each opens one link. */
  readonly #nonces = new NodeTokenNonces()
  /** Refused links not logged yet, and when the last line about them was. */
  #refused = 0
  #refusedLoggedAt = -Infinity
  /** Pings each link left unanswered since its last pong. */
  readonly #missed = new WeakMap<WebSocket, number>()
  readonly #heartbeat: NodeJS.Timeout

  constructor(opts: NodeLinksOptions) {
    this.#opts = opts
    this.#heartbeat = setInterval(() => this.#beat(), opts.heartbeatMs ?? HEARTBEAT_MS)
    this.#heartbeat.unref()
  }

  /**
   * Ping every open link; drop one whose last two pings went unanswered. Retire channels idle
   * since the last beat.
   */
  #beat(): void {
    for (const { channels } of this.#out.values()) channels.beat()
    for (const channels of this.#in.values()) channels?.beat()
    for (const ws of [...[...this.#out.values()].map((o) => o.ws), ...this.#in.keys()]) {
      if (ws.readyState !== WebSocket.OPEN) continue
      const missed = this.#missed.get(ws) ?? 0
      if (missed >= 2) {
        this.#opts.log.warn(`cluster: a node link left two pings unanswered; dropping it`)
        ws.terminate()
        continue
      }
      this.#missed.set(ws, missed + 1)
      ws.ping()
    }
  }

  /** Count `ws`'s pongs for the heartbeat. */
  #watch(ws: WebSocket): void {
    ws.on('pong', () => this.#missed.set(ws, 0))
  }

  /**
   * The link to node `node` at `url` (its internal base URL), connecting when there is none; the
   * token it presents is good for that node only.
   */
  link(url: string, node: string): Promise<LinkChannels> {
    const open = this.#out.get(url)
    if (open && open.ws.readyState <= WebSocket.OPEN) return open.ready
    const base = url.replace(/^http/, 'ws').replace(/\/$/, '')
    const ws = new WebSocket(`${base}${NODE_CHANNELS_PATH}`, {
      perMessageDeflate: false,
      maxPayload: MAX_LINK_MESSAGE_BYTES,
      handshakeTimeout: 5000,
      headers: {
        authorization: `Burrow-Node ${signNodeToken(this.#opts.secret, this.#opts.nodeId, node)}`,
      },
    })
    const channels = new LinkChannels(ws, {
      side: 'opener',
      onProtocolError: (err) => ws.close(1002, err.message.slice(0, 120)),
    })
    ws.on('message', (data: Buffer, binary) => {
      if (binary) channels.receive(data)
    })
    const ready = new Promise<LinkChannels>((resolve, reject) => {
      ws.once('open', () => resolve(channels))
      ws.once('error', (err) => reject(new Error(`node link to ${url}: ${err.message}`)))
      // With a listener, ws leaves a refused handshake open (CONNECTING, for ever): ended here,
      // so that the link is dropped and the next request opens a new one.
      ws.once('unexpected-response', (_req, res) => {
        reject(new Error(`node link to ${url}: HTTP ${res.statusCode}`))
        ws.terminate()
      })
    })
    ready.catch(() => {})
    this.#watch(ws)
    ws.on('error', () => {})
    ws.on('close', () => {
      channels.close('node link closed')
      if (this.#out.get(url)?.ws === ws) this.#out.delete(url)
    })
    this.#out.set(url, { ws, channels, ready })
    return ready
  }

  /** Accept a peer's upgrade to `NODE_LINK_PATH`, or refuse it before the 101. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', () => {})
    const match = /^Burrow-Node\s+(\S+)$/i.exec(req.headers.authorization ?? '')
    const token = match?.[1]
      ? verifyNodeToken(this.#opts.secret, match[1], this.#opts.nodeId)
      : null
    const peer = token !== null && this.#nonces.first(token) ? token.from : null
    if (peer === null || this.#closed) {
      this.#logRefusal(req.socket.remoteAddress)
      return rejectUpgrade(socket, 'unauthorized', 'node links need a valid node token')
    }
    const withChannels = (req.url ?? '').split('?', 1)[0] === NODE_CHANNELS_PATH
    this.#wss.handleUpgrade(req, socket, head, (ws) => {
      this.#watch(ws)
      if (withChannels) {
        const channels = new LinkChannels(ws, {
          side: 'server',
          onStream: this.#opts.onStream,
          onProtocolError: (err) => ws.close(1002, err.message.slice(0, 120)),
        })
        this.#in.set(ws, channels)
        ws.on('message', (data: Buffer, binary) => {
          if (binary) channels.receive(data)
        })
        ws.on('error', () => {})
        ws.on('close', () => {
          this.#in.delete(ws)
          channels.close('node link closed')
        })
        this.#opts.log.debug(`cluster: node ${peer} linked`)
        return
      }
      this.#in.set(ws, null)
      const mux = new TunnelMux({
        role: 'client',
        gatherAboveBytes: NODE_LINK_GATHER_BYTES,
        // As on a channel (node-channels.ts): these frames are tenants' requests'.
        maxQueuedControlFrames: Infinity,
        transport: {
          send: (bytes, done) => {
            if (ws.readyState === WebSocket.OPEN) ws.send(bytes, { binary: true }, done)
            else done?.(new Error('node link closed'))
          },
        },
        onOpen: this.#opts.onStream,
        onProtocolError: (err) => ws.close(1002, err.message.slice(0, 120)),
      })
      ws.on('message', (data: Buffer, binary) => {
        if (binary) mux.receive(data)
      })
      ws.on('error', () => {})
      ws.on('close', () => {
        this.#in.delete(ws)
        mux.close('node link closed')
      })
      this.#opts.log.debug(`cluster: node ${peer} linked`)
    })
  }

  /**
   * Anyone who reaches the service host can ask for a link: refusals are logged at most once a
   * minute, with their count, so that a stranger's attempts cannot fill the log.
   */
  #logRefusal(from: string | undefined): void {
    this.#refused += 1
    const now = Date.now()
    if (now - this.#refusedLoggedAt < REFUSAL_LOG_MS) return
    this.#opts.log.warn(
      `cluster: refused ${this.#refused} node link${this.#refused === 1 ? '' : 's'} without a ` +
        `valid token (the latest from ${from}); next summary in a minute at most`,
    )
    this.#refused = 0
    this.#refusedLoggedAt = now
  }

  /** Close every link. */
  close(): void {
    this.#closed = true
    clearInterval(this.#heartbeat)
    for (const { ws } of this.#out.values()) ws.terminate()
    for (const ws of this.#in.keys()) ws.terminate()
    this.#out.clear()
  }
}
