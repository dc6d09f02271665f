/**
 * The CLI's side of the tunnel: connects out to the broker over WebSocket, says HELLO, serves the
 * streams the broker opens through a RequestHandler, reconnects with backoff when the connection is
 * lost, and drains on shutdown (docs/protocol.md). States: connecting → connected → reconnecting …,
 * draining → exited.
 */
import {
  GOAWAY_CODE,
  MAX_FRAME_BYTES,
  TunnelMux,
  WriteBatcher,
  type Frame,
  type Logger,
  type Notice,
  type Welcome,
} from '@burrow/protocol'
import { WebSocket } from 'ws'
import type { RequestHandler } from '../relay/local-exchange.js'
import { reconnectDelay } from './backoff.js'
import { clientHello } from './client-hello.js'
import { describeConnectError } from './connect-error.js'
import { frameMaskFor } from './frame-mask.js'
import { heartbeatInterval } from './heartbeat-interval.js'
import { InFlight } from './in-flight.js'
import { serveStream } from './serve-stream.js'
import { readUpgradeRefusal } from './upgrade-refusal.js'

/** Client process states. */
export type ClientState = 'connecting' | 'connected' | 'reconnecting' | 'draining' | 'exited'

/** Why `run` ended. */
export type TunnelExit =
  | { readonly reason: 'shutdown' }
  | { readonly reason: 'auth_failed'; readonly detail: string }
  | { readonly reason: 'replaced' }

/** What the client needs. */
export interface TunnelClientOptions {
  readonly broker: string
  readonly apiKey: string
  readonly name: string | null
  /** Client software, e.g. `burrow/0.1.0`. */
  readonly agent: string
  readonly handler: RequestHandler
  readonly log: Logger
  /** A WELCOME arrived; `resumed` tells whether the earlier session continues. */
  readonly onWelcome: (welcome: Welcome) => void
  /** The broker told of a change while connected (the tunnel's access). */
  readonly onNotice?: (notice: Notice) => void
  readonly onState?: (state: ClientState) => void
  /**
   * The first attempt to connect failed (no connection ever succeeded): called once, instead of
   * the usual retry line, so the user hears early that the address may be wrong while the client
   * keeps trying, `delayMs` from now.
   */
  readonly onUnreachable?: (detail: string, delayMs: number) => void
  readonly random?: () => number
  /**
   * Milliseconds a connection the broker drained or replaced gets to finish its requests in
   * flight before it closes (`BURROW_DRAIN_GRACE_SECS`); 10 s by default.
   */
  readonly drainGraceMs?: number
}

interface Outcome {
  kind: 'lost' | 'auth' | 'replaced'
  detail: string
  welcomed: boolean
  retryAfterMs: number
  /** The broker drained this connection, which goes on serving while the next one is made. */
  handedOff?: boolean
}

const WELCOME_TIMEOUT_MS = 10_000

/** One `burrow up` tunnel connection, kept alive until shutdown. */
export class TunnelClient {
  private readonly opts: TunnelClientOptions
  private state: ClientState = 'connecting'
  private stopping = false
  private resumeToken: string | undefined
  private ws: WebSocket | null = null
  private batcher: WriteBatcher | null = null
  private mux: TunnelMux | null = null
  private welcomed = false
  private wake: (() => void) | null = null
  /** Requests in flight on every connection (a drain on Ctrl-C waits for them). */
  private readonly inflight = new InFlight()
  private readonly handler: RequestHandler
  private reconnectNow = false

  constructor(opts: TunnelClientOptions) {
    this.opts = opts
    this.handler = opts.handler
  }

  /**
   * Reconnect at once (after the upstream layout changed). The session resumes, so agents keep
   * the URL; requests in flight on the old connection are reset and their agents retry. A GOAWAY
   * first tells the broker to hold new requests for the next connection instead of routing them
   * to this one while it closes.
   */
  reconnect(): void {
    if (!this.ws || this.stopping) return
    this.reconnectNow = true
    if (this.welcomed && this.ws.readyState === WebSocket.OPEN) this.sayDrain()
    this.ws.close(1000, 'reconnecting with a new upstream layout')
    // GOAWAY and close leave before the caller announces the new layout.
    this.batcher?.flush()
  }

  /** Current state. */
  get currentState(): ClientState {
    return this.state
  }

  /** Requests being answered now (standalone GET streams excluded). */
  get inflightRequests(): number {
    return this.inflight.count
  }

  /** Connect and serve until shutdown, an invalid key, or another client taking over. */
  async run(): Promise<TunnelExit> {
    let attempt = 0
    let everConnected = false
    while (!this.stopping) {
      this.setState(everConnected ? 'reconnecting' : 'connecting')
      const outcome = await this.connectOnce()
      if (outcome.kind === 'auth')
        return this.exit({ reason: 'auth_failed', detail: outcome.detail })
      if (outcome.kind === 'replaced') return this.exit({ reason: 'replaced' })
      if (this.stopping) break
      if (outcome.welcomed) {
        everConnected = true
        attempt = 0
      }
      if (this.reconnectNow) {
        this.reconnectNow = false
        this.opts.log.info('reconnecting with the new upstream layout')
        continue
      }
      // A drained connection still serves: the next one is made when the broker said, no backoff.
      const delay = outcome.handedOff
        ? outcome.retryAfterMs
        : Math.max(outcome.retryAfterMs, reconnectDelay(attempt, this.opts.random))
      this.setState('reconnecting')
      if (!everConnected && attempt === 0 && this.opts.onUnreachable) {
        this.opts.onUnreachable(outcome.detail, delay)
      } else {
        const what = everConnected
          ? 'tunnel connection lost'
          : `could not connect to ${this.opts.broker}`
        this.opts.log.warn(
          `${what} (${outcome.detail}); reconnecting in ${(delay / 1000).toFixed(1)}s`,
        )
      }
      attempt++
      await this.sleep(delay)
    }
    return this.exit({ reason: 'shutdown' })
  }

  /**
   * Stop: during backoff at once; when connected, tell the broker to route no new requests
   * (GOAWAY), let in-flight requests finish within `graceMs`, then close.
   */
  async shutdown(graceMs: number): Promise<void> {
    if (this.stopping) return
    this.stopping = true
    this.wake?.()
    const ws = this.ws
    if (!ws || ws.readyState !== WebSocket.OPEN || !this.welcomed) {
      ws?.terminate()
      return
    }
    this.setState('draining')
    this.sayDrain()
    if (this.inflight.count > 0) {
      this.opts.log.info(
        `draining ${this.inflight.count} in-flight request(s), up to ${graceMs / 1000}s`,
      )
      await this.inflight.whenIdle(graceMs)
    }
    ws.close(1000, 'client shutting down')
    this.batcher?.flush()
    setTimeout(() => ws.terminate(), 2000).unref()
  }

  /** GOAWAY DRAIN: the broker routes no new requests to this connection. */
  private sayDrain(): void {
    this.mux?.control({
      type: 'goaway',
      lastStreamId: 0,
      code: GOAWAY_CODE.drain,
      reconnectAfterMs: 0,
    })
  }

  private exit(result: TunnelExit): TunnelExit {
    this.setState('exited')
    return result
  }

  private setState(state: ClientState): void {
    if (state === this.state) return
    this.state = state
    this.opts.onState?.(state)
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms)
      function done() {
        clearTimeout(timer)
        resolve()
      }
      this.wake = () => {
        this.wake = null
        done()
      }
    })
  }

  /** How long a connection the broker drained or replaced gets for its requests in flight. */
  private get drainGraceMs(): number {
    return this.opts.drainGraceMs ?? 10_000
  }

  private connectOnce(): Promise<Outcome> {
    return new Promise((resolve) => {
      const outcome: Outcome = {
        kind: 'lost',
        detail: 'connection closed',
        welcomed: false,
        retryAfterMs: 0,
      }
      this.welcomed = false
      const generateMask = frameMaskFor(this.opts.broker)
      const ws = new WebSocket(this.opts.broker, {
        headers: { authorization: `Bearer ${this.opts.apiKey}`, 'user-agent': this.opts.agent },
        perMessageDeflate: false,
        maxPayload: MAX_FRAME_BYTES,
        handshakeTimeout: 10_000,
        ...(generateMask ? { generateMask } : {}),
      })
      this.ws = ws
      /** The requests this connection carries: a drain or a take-over waits for them. */
      const carried = new InFlight()
      let finished = false
      let missedPongs = 0
      let heartbeat: NodeJS.Timeout | undefined
      const welcomeTimer = setTimeout(() => {
        outcome.detail = 'no WELCOME from the broker'
        ws.terminate()
      }, WELCOME_TIMEOUT_MS)
      const finish = () => {
        if (finished) return
        finished = true
        clearTimeout(welcomeTimer)
        clearInterval(heartbeat)
        mux.close('tunnel connection lost')
        if (this.ws === ws) this.ws = null
        if (this.mux === mux) this.mux = null
        if (this.batcher === batcher) this.batcher = null
        if (!handedOff) resolve(outcome)
      }
      // The broker is draining: connect again at once (make before break) while this connection
      // finishes the requests it carries, then closes.
      let handedOff = false
      this.handOff = () => {
        if (handedOff || finished) return
        handedOff = true
        outcome.handedOff = true
        this.handOff = null
        if (this.ws === ws) this.ws = null
        if (this.mux === mux) this.mux = null
        if (this.batcher === batcher) this.batcher = null
        resolve(outcome)
        void carried
          .whenIdle(this.drainGraceMs)
          .then(() => ws.close(1000, 'moved to a new connection'))
      }
      // Frames written during one event-loop turn leave in one system call; the socket under the
      // WebSocket is known once the upgrade succeeded, before any frame is sent.
      let batcher: WriteBatcher | null = null
      ws.on('upgrade', (res) => (this.batcher = batcher = new WriteBatcher(res.socket)))
      const mux = new TunnelMux({
        role: 'client',
        reuseBuffers: true,
        transport: {
          send: (bytes, done) => {
            batcher?.hold()
            ws.send(bytes, { binary: true }, done)
          },
        },
        onOpen: (stream, head, body, fin) =>
          serveStream(stream, head, body, fin, this.handler, this.opts.log, [
            carried,
            this.inflight,
          ]),
        onControl: (frame) =>
          this.onControl(frame, outcome, ws, carried, () => {
            clearTimeout(welcomeTimer)
            heartbeat = setInterval(() => {
              if (missedPongs >= 2) {
                outcome.detail = 'two heartbeats unanswered'
                ws.terminate()
                return
              }
              missedPongs++
              ws.ping()
            }, this.currentHeartbeat)
            heartbeat.unref()
          }),
        onStreamError: (err) =>
          this.opts.log.warn(`a request was reset: it broke the tunnel protocol (${err.message})`),
        onProtocolError: (err) => {
          outcome.detail = `protocol error: ${err.message}`
          ws.close(1002, err.message.slice(0, 120))
        },
      })
      this.mux = mux
      let answered = false
      ws.on('unexpected-response', (_req, res) => {
        answered = true
        void readUpgradeRefusal(res).then((refused) => {
          if (refused.auth) outcome.kind = 'auth'
          outcome.detail = refused.detail
          // A throttled client waits as long as the broker asks (429 with Retry-After).
          if (refused.retryAfterMs > 0) outcome.retryAfterMs = refused.retryAfterMs
          ws.terminate()
          finish()
        })
      })
      ws.on('open', () => {
        const hello = clientHello(this.opts.agent, this.resumeToken, this.opts.name)
        mux.control({ type: 'hello', hello })
      })
      ws.on('message', (data, isBinary) => {
        if (isBinary) mux.receive(data as Buffer)
      })
      ws.on('pong', () => (missedPongs = 0))
      // Once the broker answered, its answer is the story: ws reports the socket it then closes
      // as "closed before the connection was established", which must not replace it.
      ws.on('error', (err) => {
        if (!finished && !answered) outcome.detail = describeConnectError(err)
      })
      ws.on('close', (code, reason) => {
        if (code === 1008 || code === 1002)
          outcome.detail = `broker closed the connection: ${reason.toString() || code}`
        finish()
      })
    })
  }

  private currentHeartbeat = 15_000
  /** Lets the current connection go on its own while the next one is made (broker draining). */
  private handOff: (() => void) | null = null

  private onControl(
    frame: Frame,
    outcome: Outcome,
    ws: WebSocket,
    carried: InFlight,
    welcomed: () => void,
  ): void {
    if (frame.type === 'welcome') {
      const w = frame.welcome
      this.resumeToken = w.resumeToken
      this.currentHeartbeat = heartbeatInterval(w.heartbeatMs)
      this.welcomed = true
      outcome.welcomed = true
      welcomed()
      this.setState('connected')
      this.opts.onWelcome(w)
      if (this.stopping) void this.shutdown(0)
    } else if (frame.type === 'notice') {
      if (this.welcomed) this.opts.onNotice?.(frame.notice)
    } else if (frame.type === 'goaway') {
      if (frame.code === GOAWAY_CODE.drain) {
        outcome.detail = 'the broker is restarting'
        outcome.retryAfterMs = frame.reconnectAfterMs
        if (this.welcomed) this.handOff?.()
      } else if (frame.code === GOAWAY_CODE.replaced) {
        outcome.kind = 'replaced'
        outcome.detail = 'another client took over this tunnel'
        void carried.whenIdle(this.drainGraceMs).then(() => ws.close(1000, 'replaced'))
      } else {
        outcome.kind = 'auth'
        outcome.detail = 'the tunnel key was revoked'
        ws.close(1000, 'key revoked')
      }
    }
  }
}
