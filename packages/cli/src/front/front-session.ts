/**
 * One agent session of the MCP front: its open POST exchanges, its standalone GET stream, the SSE
 * event counter, and a short queue for messages that arrive while no GET stream is open (an agent
 * opens it only after `initialized`, and reopens it after network hiccups).
 */
import type { Logger } from '../log/logger.js'
import type { LocalResponse } from '../relay/local-exchange.js'
import {
  DEFAULT_PROTOCOL_VERSION,
  idKey,
  isResponse,
  type JsonRpcId,
  type JsonRpcMessage,
} from '@burrow/protocol'
import type { BackendSession } from './mcp-backend.js'
import { PostExchange } from './post-exchange.js'
import { SseWriter } from './sse-writer.js'

/** Options of `FrontSession`. */
export interface FrontSessionOptions {
  /** The `Mcp-Session-Id`. */
  readonly id: string
  readonly keepAliveMs: number
  /** Messages held for a GET stream that is not open; the oldest go first. */
  readonly queueLimit: number
  /** Held messages older than this are dropped when the stream opens. */
  readonly queueTtlMs: number
  readonly logger: Logger
}

/**
 * Event id prefixes: ids are unique in the session and, as the MCP transport asks, tell which kind
 * of stream they came from, so a resumption attempt for a POST stream can be told apart (see
 * `isPostEventId`).
 */
const POST_STREAM = 'p'
const GET_STREAM = 'g'

/** True when an SSE event id (a `Last-Event-ID`) was issued on a POST response stream. */
export function isPostEventId(eventId: string): boolean {
  return eventId.startsWith(POST_STREAM)
}

interface Held {
  readonly message: JsonRpcMessage
  readonly at: number
}

/** State of one `Mcp-Session-Id`. */
export class FrontSession {
  readonly id: string
  /** Protocol version negotiated at initialize. */
  protocolVersion = DEFAULT_PROTOCOL_VERSION
  /** Set by the front right after construction. */
  backend: BackendSession | undefined
  /**
   * The agent the session was opened as (the edge's `Burrow-Agent`, absent on public tunnels):
   * MCP asks servers to bind sessions to who opened them, so a session id used under another
   * agent's credential is not found.
   */
  agent: string | undefined
  readonly #opts: FrontSessionOptions
  readonly #exchanges = new Map<string, PostExchange>()
  #standalone: SseWriter | undefined
  #closeStandalone: (() => void) | undefined
  #held: Held[] = []
  #eventSeq = 0
  #initializeKey: string | undefined
  #initialized = false
  #ended = false

  constructor(options: FrontSessionOptions) {
    this.id = options.id
    this.#opts = options
  }

  /** True once the initialize request was answered with a result. */
  get initialized(): boolean {
    return this.#initialized
  }

  /** True when a request with this id is waiting for its answer. */
  isInFlight(id: JsonRpcId): boolean {
    return this.#exchanges.has(idKey(id))
  }

  /** Register the POST that carries `requestIds`; it is forgotten once done. */
  openExchange(
    res: LocalResponse,
    requestIds: readonly JsonRpcId[],
    batch: boolean,
    initializeId?: JsonRpcId,
  ): PostExchange {
    const exchange = new PostExchange({
      res,
      requestIds,
      batch,
      headers: { 'mcp-session-id': this.id },
      keepAliveMs: this.#opts.keepAliveMs,
      nextEventId: () => this.#nextEventId(POST_STREAM),
    })
    const keys = requestIds.map(idKey)
    for (const key of keys) this.#exchanges.set(key, exchange)
    if (initializeId !== undefined) this.#initializeKey = idKey(initializeId)
    void exchange.done.then(() => {
      for (const key of keys) if (this.#exchanges.get(key) === exchange) this.#exchanges.delete(key)
    })
    return exchange
  }

  /**
   * Route a message from the backend: answers to their POST, related messages onto their POST's
   * stream while it is open, everything else to the GET stream. Returns the initialize outcome
   * when `message` answers the initialize request ('ok' or 'failed'), else undefined.
   */
  deliver(message: JsonRpcMessage, relatedTo?: JsonRpcId): 'ok' | 'failed' | undefined {
    if (this.#ended) return undefined
    if (isResponse(message)) {
      if (message.id === null) return undefined
      const key = idKey(message.id)
      this.#exchanges.get(key)?.answer(message)
      return key === this.#initializeKey ? this.#onInitializeAnswer(message) : undefined
    }
    const exchange = relatedTo === undefined ? undefined : this.#exchanges.get(idKey(relatedTo))
    if (exchange && !exchange.finished) exchange.relay(message)
    else this.#toStandalone(message)
    return undefined
  }

  /** True while a POST of the session waits for answers or its GET stream is open. */
  get busy(): boolean {
    return this.#exchanges.size > 0 || this.hasStandalone
  }

  /** True while the standalone GET stream is open. */
  get hasStandalone(): boolean {
    return this.#standalone !== undefined && !this.#standalone.closed
  }

  /**
   * Serve the standalone GET stream on `res` until the agent hangs up or the session ends.
   * The caller checks `hasStandalone` first (a second stream is a 409).
   */
  async serveStandalone(res: LocalResponse, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return
    let close = (): void => {}
    const closed = new Promise<void>((resolve) => {
      close = () => {
        writer.end()
        if (this.#standalone === writer) this.#standalone = undefined
        signal.removeEventListener('abort', close)
        resolve()
      }
    })
    const writer = new SseWriter(res, {
      keepAliveMs: this.#opts.keepAliveMs,
      onOverflow: () => {
        this.#opts.logger.warn(
          `session ${this.id}: the agent does not read its GET stream; closed it`,
        )
        close()
      },
    })
    writer.open({ 'mcp-session-id': this.id })
    this.#standalone = writer
    this.#closeStandalone = close
    signal.addEventListener('abort', close)
    const now = Date.now()
    const held = this.#held.filter((h) => now - h.at <= this.#opts.queueTtlMs)
    this.#held = []
    for (const h of held) writer.send(JSON.stringify(h.message), this.#nextEventId(GET_STREAM))
    await closed
  }

  /** End the session: open requests get `reason` as an error, the GET stream ends. */
  end(reason: string): void {
    if (this.#ended) return
    this.#ended = true
    for (const exchange of new Set(this.#exchanges.values())) exchange.fail(reason)
    this.#exchanges.clear()
    this.#closeStandalone?.()
    this.#held = []
  }

  #onInitializeAnswer(message: JsonRpcMessage): 'ok' | 'failed' {
    this.#initializeKey = undefined
    if (!('result' in message)) return 'failed'
    const version = message.result.protocolVersion
    if (typeof version === 'string') this.protocolVersion = version
    this.#initialized = true
    return 'ok'
  }

  #toStandalone(message: JsonRpcMessage): void {
    if (this.#standalone && !this.#standalone.closed) {
      this.#standalone.send(JSON.stringify(message), this.#nextEventId(GET_STREAM))
      return
    }
    this.#held.push({ message, at: Date.now() })
    if (this.#held.length > this.#opts.queueLimit) {
      this.#held.shift()
      this.#opts.logger.debug(`session ${this.id}: no GET stream; dropped the oldest held message`)
    }
  }

  #nextEventId(stream: string): string {
    this.#eventSeq += 1
    return `${stream}${this.#eventSeq}`
  }
}
