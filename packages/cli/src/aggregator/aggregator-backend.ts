/**
 * The aggregator: one MCP endpoint in front of several upstreams (docs/decisions.md, Aggregator).
 * It implements the front's `McpBackend`, so HTTP, sessions and SSE are `McpFront`'s business.
 * Each upstream has one shared session (`UpstreamLink`); agents' `initialize` and `ping` are
 * answered here; other requests go through the `RequestRouter`; what upstreams send is routed to
 * the agent it concerns or to all. An upstream that goes away or comes back makes its items
 * disappear or reappear, and agents are told with `list_changed`.
 */
import { idKey, type JsonRpcNotification, type JsonRpcRequest } from '@burrow/protocol'
import type { McpBackend, SessionSink } from '../front/mcp-backend.js'
import { progressTokenOf } from '../front/progress-token.js'
import { silentLogger, type Logger } from '../log/logger.js'
import { noopAggregatorMetrics, type AggregatorMetrics } from './aggregator-metrics.js'
import { aggregatorInitializeResult } from './aggregator-initialize.js'
import type { SessionRouter } from '../front/routed-session.js'
import { AggregatorSession } from './aggregator-session.js'
import { AskRouter } from './ask-router.js'
import { ListAggregator } from './list-aggregator.js'
import { ListCache } from './list-cache.js'
import { changeNotificationsFor, LIST_METHODS, listsChangedBy } from './list-methods.js'
import { RequestRouter } from './request-router.js'
import { ResourceRouter } from './resource-router.js'
import { ResourceSubscriptions } from '../front/resource-subscriptions.js'
import { rpcErrorResponse } from '../front/rpc-error.js'
import { ROOTS_LIST_CHANGED } from '../front/shared-server-roots.js'
import type { CallOwner } from './pending-table.js'
import type { CallOptions } from './upstream-calls.js'
import type { UpstreamChannel } from './upstream-channel.js'
import { UpstreamLink } from './upstream-link.js'
import { askedUrlElicitation, UrlElicitations } from '../front/url-elicitations.js'
import { LogLevels } from '../front/log-levels.js'

/** One upstream: its name (the prefix of its tools and prompts) and its channel. */
export interface AggregatorUpstream {
  readonly name: string
  readonly channel: UpstreamChannel
}

/** Options of `AggregatorBackend`. */
export interface AggregatorBackendOptions {
  /** The upstreams, in the order lists walk them. Names must be unique. */
  readonly upstreams: readonly AggregatorUpstream[]
  readonly logger?: Logger
  readonly metrics?: AggregatorMetrics
  /** burrow's version, for serverInfo and clientInfo. */
  readonly version?: string
  /** Bound of each upstream's id table. Default 10 000. */
  readonly pendingLimit?: number
  /** Delay before reconnection attempt `n` of an upstream. Default: 1 s doubling to 30 s. */
  readonly retryDelayMs?: (attempt: number) => number
  /** How long an agent's initialize waits for upstreams still connecting. Default 10 s. */
  readonly initializeWaitMs?: number
  /** How long an upstream may take to answer initialize. Default 30 s. */
  readonly upstreamInitializeTimeoutMs?: number
  /** How long an upstream may take to answer a list page an agent waits for. Default 10 s. */
  readonly listTimeoutMs?: number
}

const ALL_LISTS = Object.keys(LIST_METHODS)

/** Serves every agent session from several upstreams. */
export class AggregatorBackend implements McpBackend {
  readonly #log: Logger
  readonly #metrics: AggregatorMetrics
  readonly #version: string
  readonly #links: readonly UpstreamLink[]
  readonly #sessions = new Map<string, AggregatorSession>()
  readonly #cache = new ListCache()
  readonly #subscriptions = new ResourceSubscriptions()
  readonly #elicitations = new UrlElicitations()
  readonly #levels = new LogLevels()
  readonly #lists: ListAggregator
  readonly #resources: ResourceRouter
  readonly #router: RequestRouter
  readonly #asks: AskRouter
  readonly #sessionRouter: SessionRouter<AggregatorSession>
  readonly #firstContact: Promise<void>
  #waitTimer: NodeJS.Timeout | undefined
  #clock = 0

  constructor(options: AggregatorBackendOptions) {
    this.#log = options.logger ?? silentLogger
    this.#metrics = options.metrics ?? noopAggregatorMetrics
    this.#version = options.version ?? '0.0.0'
    this.#links = options.upstreams.map((upstream) => this.#link(upstream, options))
    const byName = new Map(this.#links.map((link) => [link.name, link]))
    if (byName.size !== this.#links.length) throw new Error('upstream names must be unique')
    this.#resources = new ResourceRouter(this.#links, () => this.#lists)
    this.#lists = new ListAggregator({
      links: this.#links,
      cache: this.#cache,
      metrics: this.#metrics,
      logger: this.#log,
      observe: (upstream, list, items) => this.#resources.observe(upstream, list, items),
      ...(options.listTimeoutMs === undefined ? {} : { pageTimeoutMs: options.listTimeoutMs }),
    })
    this.#router = new RequestRouter({
      links: this.#links,
      lists: this.#lists,
      resources: this.#resources,
      subscriptions: this.#subscriptions,
      metrics: this.#metrics,
      logger: this.#log,
      levels: this.#levels,
    })
    this.#asks = new AskRouter(this.#sessions, byName, this.#log)
    this.#sessionRouter = {
      request: (session, message, signal) => this.#agentRequest(session, message, signal),
      notify: (session, message) => this.#agentNotification(session, message),
      respond: (session, message) => this.#asks.answer(session, message),
      close: (session) => this.#sessionClosed(session),
    }
    const settled = Promise.all(this.#links.map((link) => link.whenSettled())).then(() => {})
    const waited = new Promise<void>((resolve) => {
      this.#waitTimer = setTimeout(resolve, options.initializeWaitMs ?? 10_000)
    })
    this.#firstContact = Promise.race([settled, waited]).finally(() =>
      clearTimeout(this.#waitTimer),
    )
    for (const link of this.#links) link.start()
  }

  /** The upstream links, in list order (for tests and diagnostics). */
  get links(): readonly UpstreamLink[] {
    return this.#links
  }

  /** Number of agent sessions served. */
  get sessionCount(): number {
    return this.#sessions.size
  }

  openSession(sessionId: string, sink: SessionSink): AggregatorSession {
    const session = new AggregatorSession(sessionId, sink, this.#sessionRouter)
    this.#sessions.set(sessionId, session)
    return session
  }

  async close(): Promise<void> {
    clearTimeout(this.#waitTimer)
    for (const session of this.#sessions.values()) session.closed = true
    this.#sessions.clear()
    await Promise.all(this.#links.map((link) => link.close()))
  }

  #link(upstream: AggregatorUpstream, options: AggregatorBackendOptions): UpstreamLink {
    const link = new UpstreamLink({
      name: upstream.name,
      channel: upstream.channel,
      logger: this.#log,
      metrics: this.#metrics,
      clientInfo: { name: 'burrow-aggregator', version: options.version ?? '0.0.0' },
      ...(options.pendingLimit === undefined ? {} : { pendingLimit: options.pendingLimit }),
      ...(options.retryDelayMs ? { retryDelayMs: options.retryDelayMs } : {}),
      ...(options.upstreamInitializeTimeoutMs === undefined
        ? {}
        : { initializeTimeoutMs: options.upstreamInitializeTimeoutMs }),
    })
    link.on('up', () => this.#upstreamUp(link))
    link.on('down', () => this.#upstreamDown(link))
    link.on('notification', (message, owner) => this.#upstreamNotification(link, message, owner))
    link.on('request', (message, owner) => {
      const routed = this.#asks.route(link, message, owner)
      const elicitation = routed && askedUrlElicitation(message.method, message.params)
      if (routed && elicitation !== undefined) {
        const agent = { sessionId: routed.session.id, relatedTo: routed.relatedTo }
        this.#elicitations.note(link.name, elicitation, agent)
      }
    })
    link.on('urlElicitations', (ids, owner) => {
      const agent = { sessionId: owner.sessionId, relatedTo: owner.agentId }
      for (const id of ids) this.#elicitations.note(link.name, id, agent)
    })
    link.on('askEnded', (id, reason) => this.#asks.ended(link, id, reason))
    return link
  }

  #agentRequest(session: AggregatorSession, message: JsonRpcRequest, signal: AbortSignal): void {
    if (session.closed) return
    session.lastActive = ++this.#clock
    if (message.method === 'initialize') return void this.#initialize(session, message)
    if (message.method === 'ping') {
      return session.sink.deliver({ jsonrpc: '2.0', id: message.id, result: {} })
    }
    const key = idKey(message.id)
    const controller = new AbortController()
    const onAbort = (): void => controller.abort('the client disconnected')
    signal.addEventListener('abort', onAbort, { once: true })
    session.calls.set(key, controller)
    const token = progressTokenOf(message)
    const call: CallOptions = {
      owner: {
        sessionId: session.id,
        agentId: message.id,
        group: session.sink.askGroup ?? session.id,
      },
      signal: controller.signal,
      ...(token === undefined
        ? {}
        : {
            onProgress: (params) => {
              const progress = { ...params, progressToken: token }
              const notification = { jsonrpc: '2.0' as const, method: 'notifications/progress' }
              session.sink.deliver({ ...notification, params: progress }, message.id)
            },
          }),
    }
    this.#router
      .route(session.id, message, call)
      .then(
        (result) => ({ jsonrpc: '2.0' as const, id: message.id, result }),
        (err: unknown) => rpcErrorResponse(message.id, err),
      )
      .then((answer) => {
        signal.removeEventListener('abort', onAbort)
        if (session.calls.get(key) === controller) session.calls.delete(key)
        if (session.closed) return
        try {
          session.sink.deliver(answer)
        } catch (err) {
          // An answer that cannot be written (one too large to serialise) still answers its id.
          this.#log.error(`aggregator: answering failed: ${String(err)}`)
          const why = new Error(`the answer could not be sent: ${String(err)}`)
          session.sink.deliver(rpcErrorResponse(message.id, why))
        }
      })
      .catch((err: unknown) => this.#log.error(`aggregator: answering failed: ${String(err)}`))
  }

  async #initialize(session: AggregatorSession, message: JsonRpcRequest): Promise<void> {
    const declared = message.params?.capabilities
    if (typeof declared === 'object' && declared !== null) {
      session.capabilities = declared as Record<string, unknown>
    }
    await this.#firstContact
    if (session.closed) return
    const result = aggregatorInitializeResult(message.params, this.#links, this.#version)
    session.sink.deliver({ jsonrpc: '2.0', id: message.id, result })
  }

  #agentNotification(session: AggregatorSession, message: JsonRpcNotification): void {
    if (session.closed) return
    session.lastActive = ++this.#clock
    switch (message.method) {
      case 'notifications/initialized':
        return
      case 'notifications/cancelled': {
        const id = message.params?.requestId
        if (typeof id !== 'string' && typeof id !== 'number') return
        const reason = message.params?.reason
        session.calls.get(idKey(id))?.abort(typeof reason === 'string' ? reason : 'cancelled')
        return
      }
      // Every agent shares each upstream's session: none tells it its roots changed
      // (../front/shared-server-roots.ts).
      case ROOTS_LIST_CHANGED:
        return
      default:
        this.#log.debug(`aggregator: agent notification ${message.method} not forwarded`)
    }
  }

  #sessionClosed(session: AggregatorSession): void {
    this.#sessions.delete(session.id)
    for (const controller of session.calls.values())
      controller.abort('the client ended the session')
    session.calls.clear()
    this.#asks.dropSession(session)
    this.#elicitations.dropSession(session.id)
    this.#router.sessionEnded(session.id)
    for (const { uri, upstream } of this.#subscriptions.dropSession(session.id)) {
      this.#router.unsubscribeUpstream(upstream, uri)
    }
  }

  #upstreamUp(link: UpstreamLink): void {
    this.#cache.invalidate(link.name, ALL_LISTS)
    this.#resources.forget(link.name)
    this.#router.renew(link)
    this.#announceChanges(link)
    // Read the names now, so names too long for agents are warned about at start.
    for (const method of ['tools/list', 'prompts/list']) {
      this.#lists.fetchAll(link, method, { timeoutMs: 30_000 }).catch((err: unknown) => {
        this.#log.debug(`upstream "${link.name}": ${method} failed: ${(err as Error).message}`)
      })
    }
  }

  #upstreamDown(link: UpstreamLink): void {
    this.#cache.invalidate(link.name, ALL_LISTS)
    this.#announceChanges(link)
  }

  /** Tell every agent that the lists `link` contributes to changed. */
  #announceChanges(link: UpstreamLink): void {
    for (const method of changeNotificationsFor(link.info?.capabilities)) {
      this.#broadcast({ jsonrpc: '2.0', method })
    }
  }

  #upstreamNotification(
    link: UpstreamLink,
    message: JsonRpcNotification,
    owner?: CallOwner | 'unplaced',
  ): void {
    const stale = listsChangedBy(message.method)
    if (stale.length > 0) {
      this.#cache.invalidate(
        link.name,
        stale.map((list) => list.method),
      )
      if (stale.some((list) => list.capability === 'resources')) this.#resources.forget(link.name)
      return this.#broadcast(message)
    }
    // No agent can use a task through an aggregate (no tasks/* request is routed), and a task's
    // status concerns one agent's call: it reaches none.
    if (message.method === 'notifications/tasks/status') return
    if (message.method === 'notifications/message') {
      const params = message.params ?? {}
      const logger = typeof params.logger === 'string' ? `${link.name}/${params.logger}` : link.name
      // Every 2025 session hears a server's log at its level; a 2026-07-28 call (a seat, whose
      // sink has an ask group) only the lines written for it, where that can be told (see
      // upstream-link.ts).
      const line = { ...message, params: { ...params, logger } }
      for (const session of this.#sessions.values()) {
        if (session.sink.askGroup === undefined) {
          if (this.#levels.hears(session.id, params.level)) session.sink.deliver(line)
        } else if (owner !== 'unplaced' && owner?.sessionId === session.id)
          session.sink.deliver(line, owner.agentId)
      }
      return
    }
    if (message.method === 'notifications/elicitation/complete') {
      // Only the agent the elicitation went to hears that it completed (url-elicitations.ts).
      const to = this.#elicitations.take(link.name, message.params?.elicitationId)
      const session = to && this.#sessions.get(to.sessionId)
      if (!session || session.closed) {
        this.#log.debug(`upstream "${link.name}": completion of an elicitation no agent holds`)
        return
      }
      // A 2025 session hears it on its GET stream; a 2026-07-28 call's seat with its call.
      if (session.sink.askGroup === undefined) session.sink.deliver(message)
      else session.sink.deliver(message, to.relatedTo)
      return
    }
    if (message.method === 'notifications/resources/updated') {
      const uri = message.params?.uri
      const subscribers = typeof uri === 'string' ? this.#subscribers(uri) : []
      for (const session of subscribers) session.sink.deliver(message)
      return
    }
    this.#broadcast(message)
  }

  #subscribers(uri: string): AggregatorSession[] {
    const ids = this.#subscriptions.subscribers(uri)
    return ids.flatMap((id) => this.#sessions.get(id) ?? [])
  }

  #broadcast(message: JsonRpcNotification): void {
    for (const session of this.#sessions.values()) session.sink.deliver(message)
  }
}
