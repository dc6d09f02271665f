/**
 * The aggregator's own MCP client session with one upstream, shared by every agent session. It
 * initializes the upstream once per connection, sends agent requests there through
 * `UpstreamCalls` (ids and progress tokens of its own), routes what the upstream sends (answers,
 * progress, server→client requests, notifications) and keeps the upstream's state. While the
 * upstream is down every call fails at once with an error naming it and the cause; it initializes
 * again by itself when the channel reopens (a restarted child) or, for HTTP, on a backoff timer.
 */
import { EventEmitter } from 'node:events'
import type { Logger } from '../log/logger.js'
import { reconnectDelay } from '../tunnel/backoff.js'
import {
  idKey,
  isRequest,
  isResponse,
  JSONRPC_CODE,
  type JsonRpcId,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from '@burrow/protocol'
import { noopAggregatorMetrics, type AggregatorMetrics } from './aggregator-metrics.js'
import type { CallOwner } from './pending-table.js'
import { RpcError } from '../front/rpc-error.js'
import { UpstreamCalls, type CallOptions } from './upstream-calls.js'
import type { UpstreamChannel } from './upstream-channel.js'
import { requiredUrlElicitations } from '../front/url-elicitations.js'
import {
  AGGREGATOR_CLIENT_CAPABILITIES,
  recordOf,
  UPSTREAM_PROTOCOL_VERSION,
  upstreamInfoOf,
  type UpstreamInfo,
} from './upstream-info.js'

/** Where a link is in its life. */
export type LinkState = 'starting' | 'initializing' | 'ready' | 'down' | 'closed'

/** Events of `UpstreamLink`. */
export interface UpstreamLinkEvents {
  /** The upstream is initialized and takes calls (again). */
  up: []
  /** A ready upstream went away; its calls failed. */
  down: [reason: string]
  /**
   * A notification not tied to a call (list changes, logging, resource updates…); a log line
   * with the agent request it was written for, as for a server→client request.
   */
  notification: [message: JsonRpcNotification, owner?: CallOwner | 'unplaced']
  /**
   * A server→client request, with the agent request that caused it: `'unplaced'` when that
   * cannot be told, or the call it came for has ended (see `UpstreamCalls.askOwner`).
   */
  request: [message: JsonRpcRequest, owner: CallOwner | 'unplaced' | undefined]
  /** A server→client request will not be answered any more (cancelled, or the upstream went). */
  askEnded: [upstreamRequestId: JsonRpcId, reason: string]
  /**
   * A call was answered with the URL-elicitation-required error: the ids of the URL-mode
   * elicitations it starts, with the agent request it answered (see url-elicitations.ts).
   */
  urlElicitations: [elicitationIds: string[], owner: CallOwner]
}

/** Options of `UpstreamLink`. */
export interface UpstreamLinkOptions {
  readonly name: string
  readonly channel: UpstreamChannel
  readonly logger: Logger
  readonly metrics?: AggregatorMetrics
  /** Sent as clientInfo in the upstream initialize. */
  readonly clientInfo?: Readonly<{ name: string; version: string }>
  /** Bound of the id table. Default 10 000. */
  readonly pendingLimit?: number
  /** Delay before retry `attempt` (0 first). Default: jittered, 1 s doubling to 30 s. */
  readonly retryDelayMs?: (attempt: number) => number
  /** How long the upstream may take to answer initialize. Default 30 s. */
  readonly initializeTimeoutMs?: number
}

/** One upstream's shared MCP session. */
export class UpstreamLink extends EventEmitter<UpstreamLinkEvents> {
  readonly name: string
  readonly #channel: UpstreamChannel
  readonly #log: Logger
  readonly #metrics: AggregatorMetrics
  readonly #opts: UpstreamLinkOptions
  readonly #calls: UpstreamCalls
  /** Server→client requests held by agents: idKey → the upstream's id. */
  readonly #asks = new Map<string, JsonRpcId>()
  #state: LinkState = 'starting'
  #info: UpstreamInfo | undefined
  #reason = 'it is still starting'
  #announced: 'up' | 'down' | undefined
  #generation = 0
  #retries = 0
  #retryTimer: NodeJS.Timeout | undefined
  #markSettled: () => void = () => {}
  readonly #settled = new Promise<void>((resolve) => (this.#markSettled = resolve))

  constructor(options: UpstreamLinkOptions) {
    super()
    this.name = options.name
    this.#channel = options.channel
    this.#log = options.logger
    this.#metrics = options.metrics ?? noopAggregatorMetrics
    this.#opts = options
    this.#calls = new UpstreamCalls({
      name: options.name,
      metrics: this.#metrics,
      send: (message) => this.#channel.send(message),
      post: (message) => this.#post(message),
      ...(options.pendingLimit === undefined ? {} : { limit: options.pendingLimit }),
    })
  }

  get state(): LinkState {
    return this.#state
  }

  get ready(): boolean {
    return this.#state === 'ready'
  }

  /** The latest initialize result; kept while the upstream is down. */
  get info(): UpstreamInfo | undefined {
    return this.#info
  }

  /** Why calls fail now ('' while ready). */
  get unavailableReason(): string {
    if (this.#state === 'ready') return ''
    if (this.#state === 'initializing' && this.#announced === 'down') {
      return `${this.#reason}; reconnecting`
    }
    return this.#reason
  }

  /** Resolves once the first connection attempt succeeded or failed. */
  whenSettled(): Promise<void> {
    return this.#settled
  }

  /** The upstream's capability `name` (e.g. `tools`) while it is ready, else undefined. */
  capability(name: string): Readonly<Record<string, unknown>> | undefined {
    return this.ready ? recordOf(this.#info?.capabilities[name]) : undefined
  }

  /** Connect. Events follow. */
  start(): void {
    this.#channel.start({
      open: () => this.#onOpen(),
      message: (message, stream) => this.#onMessage(message, stream),
      lost: (reason) => this.#fail(reason),
      bytes: (direction, n) => this.#metrics.bytes(this.name, direction, n),
    })
  }

  /** Send a request; resolves with its result, rejects with an `RpcError`. */
  request(
    method: string,
    params: Readonly<Record<string, unknown>> | undefined,
    options: CallOptions = {},
  ): Promise<Readonly<Record<string, unknown>>> {
    if (this.#state !== 'ready') return Promise.reject(this.#unavailable())
    return this.#calls.call(method, params, options)
  }

  /** Answer a server→client request; `message.id` is the upstream's own id. */
  respond(message: JsonRpcResponse): void {
    if (message.id === null || !this.#asks.delete(idKey(message.id))) return
    this.#post(message)
  }

  /** Stop: fail what is in flight and close the channel. */
  async close(): Promise<void> {
    if (this.#state === 'closed') return
    this.#state = 'closed'
    this.#generation += 1
    clearTimeout(this.#retryTimer)
    this.#calls.failAll(new RpcError(JSONRPC_CODE.serverError, 'burrow is shutting down'))
    this.#markSettled()
    await this.#channel.close()
  }

  #onOpen(): void {
    clearTimeout(this.#retryTimer)
    this.#retryTimer = undefined
    void this.#initialize()
  }

  async #initialize(): Promise<void> {
    if (this.#state === 'closed') return
    const generation = ++this.#generation
    this.#state = 'initializing'
    try {
      const params = {
        protocolVersion: UPSTREAM_PROTOCOL_VERSION,
        capabilities: AGGREGATOR_CLIENT_CAPABILITIES,
        clientInfo: this.#opts.clientInfo ?? { name: 'burrow-aggregator', version: '0' },
      }
      const timeoutMs = this.#opts.initializeTimeoutMs ?? 30_000
      const result = await this.#calls.call('initialize', params, { timeoutMs })
      if (generation !== this.#generation) return
      const info = upstreamInfoOf(result)
      await this.#channel.send({ jsonrpc: '2.0', method: 'notifications/initialized' })
      if (generation !== this.#generation) return
      this.#becomeReady(info)
    } catch (err) {
      if (generation !== this.#generation) return
      this.#fail(`initialize failed: ${err instanceof Error ? err.message : String(err)}`)
    }
  }

  #becomeReady(info: UpstreamInfo): void {
    this.#state = 'ready'
    this.#info = info
    this.#retries = 0
    if (this.#announced === 'down') {
      this.#metrics.upstreamRecovery(this.name)
      this.#log.info(`upstream "${this.name}" is available again`)
    }
    this.#announced = 'up'
    const server = info.serverInfo
    const what = server ? `${String(server.name)} ${String(server.version)}` : 'a server'
    this.#log.debug(`upstream "${this.name}" initialized: ${what}, MCP ${info.protocolVersion}`)
    this.#markSettled()
    this.emit('up')
  }

  /** The upstream is unavailable: fail what is in flight, then wait for it to come back. */
  #fail(reason: string): void {
    if (this.#state === 'closed') return
    if (this.#state !== 'down') {
      const wasReady = this.#state === 'ready'
      this.#state = 'down'
      this.#generation += 1
      this.#reason = reason
      this.#calls.failAll(this.#unavailable())
      const asks = [...this.#asks.values()]
      this.#asks.clear()
      for (const id of asks) this.emit('askEnded', id, `upstream "${this.name}" went away`)
      if (this.#announced !== 'down') {
        this.#announced = 'down'
        this.#metrics.upstreamFailure(this.name)
        this.#log.warn(`upstream "${this.name}" is unavailable: ${reason}`)
      } else {
        this.#log.debug(`upstream "${this.name}" is still unavailable: ${reason}`)
      }
      this.#markSettled()
      if (wasReady) this.emit('down', reason)
    }
    this.#scheduleRetry()
  }

  #scheduleRetry(): void {
    if (this.#state === 'closed' || this.#retryTimer || !this.#channel.canRetry) return
    const delay = (this.#opts.retryDelayMs ?? reconnectDelay)(this.#retries)
    this.#retries += 1
    this.#log.debug(`upstream "${this.name}": next connection attempt in ${delay} ms`)
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined
      void this.#initialize()
    }, delay)
  }

  #onMessage(message: JsonRpcMessage, stream: JsonRpcId | undefined): void {
    if (this.#state === 'closed') return
    if (isResponse(message)) {
      const call = this.#calls.answer(message)
      if (!call) {
        this.#log.debug(`upstream "${this.name}" answered unknown request ${String(message.id)}`)
      } else if ('error' in message && call.owner) {
        // Told before the agent's call settles (that runs in a later microtask).
        const ids = requiredUrlElicitations(message.error)
        if (ids.length > 0) this.emit('urlElicitations', ids, call.owner)
      }
      return
    }
    if (isRequest(message)) {
      if (message.method === 'ping')
        return this.#post({ jsonrpc: '2.0', id: message.id, result: {} })
      this.#asks.set(idKey(message.id), message.id)
      this.emit('request', message, this.#calls.askOwner(stream))
      return
    }
    const params = message.params ?? {}
    if (message.method === 'notifications/progress') return this.#calls.progress(params)
    if (message.method === 'notifications/cancelled') {
      const id = params.requestId
      if ((typeof id === 'string' || typeof id === 'number') && this.#asks.delete(idKey(id))) {
        const reason = typeof params.reason === 'string' ? params.reason : 'cancelled by the server'
        this.emit('askEnded', id, reason)
      }
      return
    }
    // Which call a log line is for is placed as a question would be (only logs need it).
    const owner =
      message.method === 'notifications/message' ? this.#calls.askOwner(stream) : undefined
    this.emit('notification', message, owner)
  }

  #unavailable(): RpcError {
    const reason = this.unavailableReason
    return new RpcError(
      JSONRPC_CODE.serverError,
      `upstream "${this.name}" is unavailable: ${reason}`,
      { upstream: this.name, reason },
    )
  }

  #post(message: JsonRpcMessage): void {
    this.#channel.send(message).catch((err: unknown) => {
      const reason = err instanceof Error ? err.message : String(err)
      this.#log.debug(`upstream "${this.name}": message not delivered: ${reason}`)
    })
  }
}
