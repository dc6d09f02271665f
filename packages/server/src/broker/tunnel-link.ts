/**
 * One live WebSocket from a `burrow up` process: the handshake (HELLO → WELCOME), the mux that
 * carries public requests to it, heartbeats, and the drain the client asks for with GOAWAY.
 */
import {
  FEATURE_NOTICE,
  GOAWAY_CODE,
  PROTOCOL_VERSION,
  ProtocolError,
  TunnelMux,
  WriteBatcher,
  type AccessNote,
  type Corkable,
  type Frame,
  type GoawayCode,
  type Hello,
  type Logger,
  type Welcome,
} from '@burrow/protocol'
import type { WebSocket } from 'ws'
import type { TunnelWithAccount } from '../store/store.js'

/** The WebSocket close code of a connection whose key was revoked (rotated, tunnel deleted). */
export const CLOSE_REVOKED = 4001

/** Counts of frames and bytes a link sends and receives (burrowd's metrics). */
export interface LinkMeters {
  received(bytes: number): void
  sent(bytes: number): void
}

/** Where a link reports its life to. */
export interface LinkEvents {
  /** HELLO arrived; return the WELCOME to send, or a reason to refuse. */
  hello(link: TunnelLink, hello: Hello): Welcome | { refuse: string }
  /** The client sent GOAWAY: route no new requests here. */
  draining(link: TunnelLink): void
  /** The socket closed. */
  closed(link: TunnelLink): void
}

/** Milliseconds a client has to send HELLO after the upgrade. */
const HELLO_TIMEOUT_MS = 10_000

/**
 * Bytes that may wait to be written to one client. DATA stops at the mux's high-water mark (1 MiB)
 * and control frames at their own bound; what is left beyond (request heads, inline bodies) waits
 * on public requests that each hold an agent's connection. A client that lets this much pile up
 * does not read, and is cut off.
 */
const MAX_UNREAD_BYTES = 64 * 1024 * 1024

/** A client's stream faults are logged at most once per this many milliseconds. */
const FAULT_LOG_MS = 60_000

/** A connected tunnel client. */
export class TunnelLink {
  readonly tunnel: TunnelWithAccount
  readonly mux: TunnelMux
  /** handshake → active → draining → closed. */
  state: 'handshake' | 'active' | 'draining' | 'closed' = 'handshake'
  sessionId = ''
  /** Whether the client reads NOTICE frames (it named `notice` in HELLO). */
  private readsNotices = false
  /** The access mode the client was last told (WELCOME or NOTICE); null: none. */
  private toldAccess: string | null = null
  private readonly ws: WebSocket
  private readonly events: LinkEvents
  private readonly log: Logger
  /**
   * Pings sent and not answered. Starts at −1: the shared heartbeat's first tick comes anywhere
   * within a period of the connection, so it is skipped and the first ping goes out one to two
   * periods after connecting, never at once.
   */
  private missedPongs = -1
  private helloTimer: NodeJS.Timeout | null
  /** When a stream fault was last logged, and how many were not logged since. */
  private faultLoggedAt = -Infinity
  private faultsUnlogged = 0
  /** The client broke the protocol: the connection is closing. */
  private refused = false
  /**
   * The service closed the connection before HELLO, or for a revoked key (`close`): nothing more
   * the client sends is read. Before, frames kept being handled until the client answered the
   * close or 2 s passed, so a connection closed for a rotated key could still say HELLO and take
   * the tunnel from the owner's new client (found by a hostile review). A welcomed connection
   * closed otherwise (drained, replaced, the service stopping) is read until it goes: what its
   * streams still carry reaches the agents, and a HELLO there is a protocol error.
   */
  private deaf = false
  /** The client was cut off for leaving too much unread. */
  private cutOff = false

  /**
   * `socket` is the connection under `ws`: given, frames written in one event-loop turn leave in
   * one system call. The registry calls `beat` on every link once per heartbeat period.
   */
  constructor(
    ws: WebSocket,
    tunnel: TunnelWithAccount,
    events: LinkEvents,
    log: Logger,
    socket?: Corkable,
    meters?: LinkMeters,
  ) {
    this.ws = ws
    this.tunnel = tunnel
    this.events = events
    this.log = log
    // Frames written during one event-loop turn leave in one system call.
    const batcher = socket ? new WriteBatcher(socket) : null
    this.mux = new TunnelMux({
      role: 'broker',
      reuseBuffers: true,
      transport: {
        send: (bytes, done) => {
          meters?.sent(bytes.length)
          batcher?.hold()
          ws.send(bytes, { binary: true }, done)
          // Checked as bytes are queued too: a client that reads nothing may send nothing either.
          if (ws.bufferedAmount > MAX_UNREAD_BYTES) this.unread()
        },
      },
      onControl: (frame) => this.onControl(frame),
      onProtocolError: (err) => this.protocolError(err),
      onStreamError: (err) => this.streamFault(err),
    })
    ws.on('message', (data, isBinary) => {
      meters?.received((data as Buffer).length)
      if (this.refused || this.deaf) return // closing: nothing more is read
      if (!isBinary)
        return this.protocolError(new ProtocolError('bad_payload', 'text message on the tunnel'))
      if (ws.bufferedAmount > MAX_UNREAD_BYTES) return this.unread()
      try {
        this.mux.receive(data as Buffer)
      } catch (err) {
        // A fault in handling one client's frame (a bug, since bad frames are ProtocolErrors)
        // ends that client's connection, not burrowd and every other tunnel with it.
        this.log.error(
          `tunnel ${tunnel.id}: handling a frame failed; dropping the connection: ${(err as Error).stack ?? String(err)}`,
        )
        // The mux may be half through that frame: it takes no more, and its streams end now.
        this.mux.close('the service failed handling the tunnel client')
        this.close(1011, 'internal error')
      }
    })
    ws.on('pong', () => (this.missedPongs = 0))
    ws.on('close', () => this.onClose())
    ws.on('error', (err) => this.log.debug(`tunnel ${tunnel.id}: socket error: ${err.message}`))
    this.helloTimer = setTimeout(() => this.close(1008, 'no HELLO'), HELLO_TIMEOUT_MS)
    this.helloTimer.unref()
  }

  /** Ask the client to stop (another connection took over, or the key was revoked). */
  goaway(code: GoawayCode, reconnectAfterMs = 0): void {
    this.mux.control({ type: 'goaway', lastStreamId: 0, code, reconnectAfterMs })
    if (this.state === 'active') this.state = 'draining'
  }

  /**
   * Tell the client its tunnel's access is now `access`, when it reads NOTICE, is welcomed and was
   * told another mode. An older client is never sent the frame: it would refuse its type.
   */
  tellAccess(access: AccessNote): void {
    if (this.state !== 'active' || !this.readsNotices || this.toldAccess === access.mode) return
    this.toldAccess = access.mode
    this.mux.control({ type: 'notice', notice: { access } })
  }

  /** Close the socket now; open streams are reset. */
  close(code = 1000, reason = ''): void {
    if (this.state === 'closed') return
    if (this.state === 'handshake' || code === CLOSE_REVOKED) this.deaf = true
    this.ws.close(code, reason)
    // A peer that does not answer the close handshake is cut off.
    setTimeout(() => this.ws.terminate(), 2000).unref()
  }

  /** One heartbeat: ping, or drop a peer that left the last two pings unanswered. @internal */
  beat(): void {
    if (this.state === 'closed') return
    if (this.missedPongs < 0) {
      this.missedPongs = 0
      return
    }
    if (this.missedPongs >= 2) {
      this.log.info(`tunnel ${this.tunnel.id}: two heartbeats unanswered, dropping the connection`)
      this.ws.terminate()
      return
    }
    this.missedPongs++
    this.ws.ping()
  }

  private onControl(frame: Frame): void {
    if (frame.type === 'hello') {
      if (this.state !== 'handshake')
        return this.protocolError(new ProtocolError('bad_payload', 'second HELLO'))
      this.stopHelloTimer()
      if (frame.hello.version !== PROTOCOL_VERSION) {
        this.close(
          1002,
          `protocol version ${frame.hello.version} is not supported (this broker speaks ${PROTOCOL_VERSION})`,
        )
        return
      }
      const answer = this.events.hello(this, frame.hello)
      if ('refuse' in answer) return this.close(1008, answer.refuse)
      this.readsNotices = frame.hello.features?.includes(FEATURE_NOTICE) ?? false
      this.toldAccess = answer.access?.mode ?? null
      this.state = 'active'
      this.mux.control({ type: 'welcome', welcome: answer })
    } else if (frame.type === 'goaway' && frame.code === GOAWAY_CODE.drain) {
      if (this.state === 'active') {
        this.state = 'draining'
        this.events.draining(this)
      }
    }
  }

  /**
   * A stream was reset for the client's faulty frame: logged once a minute at most, with how many
   * more there were (a client answering every request so made a line per request).
   */
  private streamFault(err: ProtocolError): void {
    const now = Date.now()
    if (now - this.faultLoggedAt < FAULT_LOG_MS) {
      this.faultsUnlogged++
      return
    }
    this.faultLoggedAt = now
    this.log.warn(
      `tunnel ${this.tunnel.id}: stream ${err.streamId} reset: the client broke the protocol: ${err.message}${this.faultsSince()}`,
    )
  }

  /** ` (N more streams reset …)` for the faults not logged since the last line; none: empty. */
  private faultsSince(): string {
    const n = this.faultsUnlogged
    this.faultsUnlogged = 0
    return n === 0
      ? ''
      : ` (${n} more stream${n === 1 ? '' : 's'} reset so since the last such line)`
  }

  /** The client left more than `MAX_UNREAD_BYTES` unread: it is cut off (once). */
  private unread(): void {
    if (this.cutOff) return
    this.cutOff = true
    this.log.warn(
      `tunnel ${this.tunnel.id}: the client left ${this.ws.bufferedAmount} bytes unread; dropping the connection`,
    )
    this.ws.terminate()
  }

  /** Drop the HELLO deadline (and the timer object: an idle link keeps no timer of its own). */
  private stopHelloTimer(): void {
    if (this.helloTimer) clearTimeout(this.helloTimer)
    this.helloTimer = null
  }

  private protocolError(err: ProtocolError): void {
    // Once: what the client sends until its socket closes is refused again, and was a line each.
    if (this.refused) return
    this.refused = true
    this.log.warn(`tunnel ${this.tunnel.id}: protocol error from client: ${err.message}`)
    // A client that does not read would not read a close frame either: its queue goes at once.
    if (err.code === 'flood') this.ws.terminate()
    else this.close(1002, err.message.slice(0, 120))
  }

  private onClose(): void {
    if (this.state === 'closed') return
    this.state = 'closed'
    this.stopHelloTimer()
    if (this.faultsUnlogged > 0) {
      this.log.warn(
        `tunnel ${this.tunnel.id}: ${this.faultsUnlogged} more stream(s) were reset for the client's faulty frames before it disconnected`,
      )
      this.faultsUnlogged = 0
    }
    this.mux.close('tunnel client disconnected')
    this.events.closed(this)
  }
}
