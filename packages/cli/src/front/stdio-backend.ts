/**
 * The single-upstream stdio backend: one supervised child serves every agent session. A stdio MCP
 * server knows one client, so this file makes N agents look like one: request ids and progress
 * tokens are rewritten per call (two agents may both send id 1), `initialize` reaches the child
 * once per child and later sessions get the cached result, and what the child sends is routed
 * back to the agent it concerns. A child restart is a new server: every session ends (404, so
 * agents initialize again) and open requests fail.
 */
import { silentLogger, type Logger } from '../log/logger.js'
import {
  StdioBackloggedError,
  type StdioExit,
  type StdioSupervisor,
} from '../stdio/stdio-supervisor.js'
import {
  errorResponse,
  idKey,
  isRecord,
  isRequest,
  isResponse,
  JSONRPC_CODE,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from '@burrow/protocol'
import type { McpBackend, SessionSink } from './mcp-backend.js'
import { progressTokenOf, withProgressToken } from './progress-token.js'
import { ResourceSubscriptions } from './resource-subscriptions.js'
import { CallTable, type ChildCall } from './call-table.js'
import { InitializeGate } from './initialize-gate.js'
import { childAskPlacement } from './child-ask-placement.js'
import type { SessionRouter } from './routed-session.js'
import { StdioSession } from './stdio-session.js'
import { TaskOwners } from './task-owners.js'
import { ROOTS_LIST_CHANGED } from './shared-server-roots.js'
import { LogLevels, logLevelRefusal } from './log-levels.js'
import { deliverChildNotification, STDIO, type ChildAudiences } from './child-notifications.js'
import {
  askedUrlElicitation,
  requiredUrlElicitations,
  UrlElicitations,
} from './url-elicitations.js'

/** Options of `StdioBackend`. */
export interface StdioBackendOptions {
  /** The child to serve; started here unless already started, closed by `close()`. */
  readonly supervisor: StdioSupervisor
  readonly logger?: Logger
  /** How long an `initialize` waits for a restarting child before failing. Default 10 s. */
  readonly initializeWaitMs?: number
}

/** Serves every agent session from one supervised stdio MCP server. */
export class StdioBackend implements McpBackend {
  readonly #sup: StdioSupervisor
  /** Messages are being dropped because the server does not read (warned once). */
  #dropping = false
  readonly #log: Logger
  readonly #router: SessionRouter<StdioSession>
  readonly #gate: InitializeGate
  readonly #sessions = new Set<StdioSession>()
  readonly #table = new CallTable()
  /** Who is subscribed to which resource, so that updates reach only them. */
  readonly #subscriptions = new ResourceSubscriptions()
  /** Whose each task of the child is (its SDK keeps every agent's tasks in one store). */
  readonly #tasks = new TaskOwners()
  /** The level each session set: the child is asked for the most verbose one. */
  readonly #levels = new LogLevels()
  /** The agent each URL-mode elicitation went to, which alone hears that it completed. */
  readonly #elicitations = new UrlElicitations()
  /** Who hears what the child notifies. */
  readonly #heard: ChildAudiences
  #deadGeneration = 0
  #clock = 0

  constructor(options: StdioBackendOptions) {
    this.#sup = options.supervisor
    this.#log = options.logger ?? silentLogger
    this.#heard = {
      sessions: this.#sessions,
      table: this.#table,
      subscriptions: this.#subscriptions,
      tasks: this.#tasks,
      levels: this.#levels,
      elicitations: this.#elicitations,
      log: this.#log,
    }
    this.#router = {
      request: (session, message, signal) => this.#agentRequest(session, message, signal),
      notify: (session, message) => this.#agentNotification(session, message),
      respond: (session, message) => this.#agentResponse(session, message),
      close: (session) => this.#sessionClosed(session),
    }
    const hooks = {
      childUp: () => this.#sup.running,
      forward: (session: StdioSession, message: JsonRpcRequest, signal: AbortSignal) =>
        this.#call(session, message, signal),
    }
    this.#gate = new InitializeGate(hooks, options.initializeWaitMs ?? 10_000, this.#log)
    this.#sup.on('message', (message, generation) => this.#fromChild(message, generation))
    this.#sup.on('spawn', () => {
      this.#dropping = false
      this.#gate.release()
    })
    this.#sup.on('exit', (exit) => this.#onChildExit(exit))
    if (this.#sup.generation === 0) this.#sup.start()
  }

  /** Number of agent sessions the backend serves. */
  get sessionCount(): number {
    return this.#sessions.size
  }

  openSession(sessionId: string, sink: SessionSink): StdioSession {
    const session = new StdioSession(sessionId, sink, this.#router)
    this.#sessions.add(session)
    return session
  }

  /** Resolves when the child first started; rejects when its command does not exist. */
  started(): Promise<void> {
    return this.#sup.started()
  }

  /** Resolves if the supervisor gave up on the command. */
  failure(): Promise<Error> {
    return this.#sup.failure()
  }

  /** Why the server takes no request now (it has not read what waits for it), or undefined. */
  backlog(): string | undefined {
    return this.#sup.backlog()
  }

  /** Stop the child; its exit ends whatever sessions remain. */
  async close(): Promise<void> {
    this.#gate.close()
    await this.#sup.close()
  }

  #agentRequest(session: StdioSession, message: JsonRpcRequest, signal: AbortSignal): void {
    if (session.closed) return
    session.lastActive = ++this.#clock
    if (message.method === 'initialize') {
      const declared = message.params?.capabilities
      if (isRecord(declared)) session.capabilities = declared
      return this.#gate.submit(session, message, signal)
    }
    if (!this.#gate.ready) {
      const error = 'the stdio server is not initialized; send initialize first'
      return session.sink.deliver(errorResponse(message.id, JSONRPC_CODE.serverError, error))
    }
    const foreignTask = this.#tasks.refusal(session, message)
    if (foreignTask !== null) return session.sink.deliver(foreignTask)
    const uri = message.params?.uri
    if (message.method === 'resources/subscribe' && typeof uri === 'string') {
      const refused = this.#subscriptions.refusal(uri, session.id)
      if (refused !== null) {
        return session.sink.deliver(errorResponse(message.id, JSONRPC_CODE.serverError, refused))
      }
      // Recorded now, so that an update sent before the answer reaches the session.
      const fresh = !this.#subscriptions.subscribers(uri).includes(session.id)
      this.#subscriptions.add(uri, STDIO, session.id)
      return void this.#call(session, message, signal, fresh ? uri : undefined)
    } else if (message.method === 'resources/unsubscribe' && typeof uri === 'string') {
      // Only the last subscriber's unsubscribe reaches the server: one forwarded for a session
      // that never subscribed, or while others still are, would end theirs.
      if (this.#subscriptions.remove(uri, session.id) !== STDIO) {
        return session.sink.deliver({ jsonrpc: '2.0', id: message.id, result: {} })
      }
    } else if (message.method === 'logging/setLevel') {
      const refused = logLevelRefusal(message.params?.level)
      if (refused !== null) {
        return session.sink.deliver(errorResponse(message.id, JSONRPC_CODE.invalidParams, refused))
      }
      this.#levels.set(session.id, message.params?.level as string)
      const params = { ...message.params, level: this.#levels.serverLevel }
      return void this.#call(session, { ...message, params }, signal)
    }
    this.#call(session, message, signal)
  }

  #agentNotification(session: StdioSession, message: JsonRpcNotification): void {
    if (session.closed) return
    session.lastActive = ++this.#clock
    if (message.method === 'notifications/cancelled') return this.#agentCancelled(session, message)
    if (message.method === 'notifications/initialized' && !this.#gate.takeInitialized()) return
    // The child serves every agent: none tells it its roots changed (shared-server-roots.ts).
    if (message.method === ROOTS_LIST_CHANGED) return
    this.#trySend(message)
    // Until the child answers this ping, roots it asks for answer initialized, not a call.
    if (message.method === 'notifications/initialized') {
      const ping = this.#table.nextChildId()
      this.#table.fenceInitialized(ping)
      this.#trySend({ jsonrpc: '2.0', id: ping, method: 'ping' })
    }
  }

  #agentResponse(session: StdioSession, message: JsonRpcResponse): void {
    if (session.closed || message.id === null) return
    const childId = session.asks.get(idKey(message.id))
    if (childId === undefined) {
      this.#log.debug(`session ${session.id}: answer to unknown request ${String(message.id)}`)
      return
    }
    session.lastActive = ++this.#clock
    this.#table.takeAsk(childId)
    this.#trySend({ ...message, id: childId })
  }

  /** The agent cancelled one of its requests: tell the child, and close the agent's POST. */
  #agentCancelled(session: StdioSession, message: JsonRpcNotification): void {
    const requestId = message.params?.requestId
    const validId = typeof requestId === 'string' || typeof requestId === 'number'
    const call = this.#table.call(validId ? session.inFlight.get(idKey(requestId)) : undefined)
    if (!call || call.method === 'initialize') return
    this.#table.cancel(call)
    this.#trySend({ ...message, params: { ...message.params, requestId: call.childId } })
    // The agent ignores any answer now (MCP cancellation); this one only ends its POST stream.
    const reason = 'request cancelled by the client'
    session.sink.deliver(errorResponse(call.agentId, JSONRPC_CODE.serverError, reason))
  }

  #sessionClosed(session: StdioSession): void {
    this.#sessions.delete(session)
    this.#gate.drop(session)
    for (const childId of [...session.inFlight.values()]) {
      const call = this.#table.call(childId)
      // initialize must not be cancelled (MCP lifecycle); its answer still fills the cache.
      if (call && call.method !== 'initialize') this.#cancel(call, 'the client ended the session')
    }
    for (const childId of [...session.asks.values()]) {
      this.#table.takeAsk(childId)
      const reason = 'the client session ended before answering'
      this.#trySend(errorResponse(childId, JSONRPC_CODE.internalError, reason))
    }
    this.#elicitations.dropSession(session.id)
    // Nobody is subscribed any more: the server stops sending its updates (answers unused).
    for (const { uri } of this.#subscriptions.dropSession(session.id)) {
      this.#sendUnanswered('resources/unsubscribe', { uri })
    }
    // The most verbose level set was this session's: the server goes back to the others'.
    if (this.#levels.drop(session.id)) {
      this.#sendUnanswered('logging/setLevel', { level: this.#levels.serverLevel })
    }
  }

  /** A request of burrow's own to the child, whose answer nobody waits for. */
  #sendUnanswered(method: string, params: Record<string, unknown>): void {
    this.#trySend({ jsonrpc: '2.0', id: this.#table.nextChildId(), method, params })
  }

  /** Send an agent request to the child under a fresh id (and progress token). */
  #call(
    session: StdioSession,
    message: JsonRpcRequest,
    signal: AbortSignal,
    subscribes?: string,
  ): boolean {
    const childId = this.#table.nextChildId()
    const agentToken = progressTokenOf(message)
    const call: ChildCall = {
      session,
      agentId: message.id,
      childId,
      method: message.method,
      order: ++this.#clock,
      agentToken,
      ...(subscribes !== undefined ? { subscribes } : {}),
      detach: () => {},
    }
    if (message.method !== 'initialize') {
      // Hanging up cancels (see mcp-front.ts); the MCP lifecycle forbids cancelling initialize.
      const onAbort = (): void => this.#cancel(call, 'the client disconnected')
      signal.addEventListener('abort', onAbort, { once: true })
      call.detach = () => signal.removeEventListener('abort', onAbort)
    }
    this.#table.add(call)
    const params = agentToken === undefined ? message.params : withProgressToken(message, childId)
    // JSON-RPC's members only: the SDKs drop a request with another (`"foo": 1`) unanswered.
    try {
      this.#sup.send({ jsonrpc: '2.0', id: childId, method: message.method, params })
      this.#dropping = false
      return true
    } catch (err) {
      this.#table.settle(call)
      if (subscribes !== undefined) this.#subscriptions.remove(subscribes, session.id)
      const reason = err instanceof Error ? err.message : String(err)
      session.sink.deliver(errorResponse(message.id, JSONRPC_CODE.serverError, reason))
      return false
    }
  }

  #cancel(call: ChildCall, reason: string): void {
    if (!this.#table.cancel(call)) return
    const params = { requestId: call.childId, reason }
    this.#trySend({ jsonrpc: '2.0', method: 'notifications/cancelled', params })
  }

  #fromChild(message: JsonRpcMessage, generation: number): void {
    if (generation <= this.#deadGeneration) return
    if (isResponse(message)) this.#childResponse(message)
    else if (isRequest(message)) this.#childRequest(message)
    else deliverChildNotification(message, this.#heard)
  }

  #childResponse(message: JsonRpcResponse): void {
    if (this.#table.fenceAnswered(message.id)) return
    const call = this.#table.call(message.id)
    if (!call) {
      this.#log.debug(`stdio server answered unknown or cancelled request ${String(message.id)}`)
      return
    }
    this.#table.settle(call)
    // A subscription the server refused is not one.
    if (call.subscribes !== undefined && 'error' in message) {
      this.#subscriptions.remove(call.subscribes, call.session.id)
    }
    // The URL-mode elicitations a -32042 error starts complete to this agent alone.
    for (const id of 'error' in message ? requiredUrlElicitations(message.error) : []) {
      this.#elicitations.note(STDIO, id, { sessionId: call.session.id, relatedTo: call.agentId })
    }
    const answer = this.#tasks.answered(call.session, call.method, { ...message, id: call.agentId })
    // Ready before the agent hears: a 2026-07-28 seat sends initialized as it reads the answer.
    if (call.method === 'initialize') this.#gate.answered(answer)
    call.session.sink.deliver(answer)
    for (const status of this.#tasks.held(call.session, answer)) call.session.sink.deliver(status)
  }

  /** A server→client request (sampling, elicitation, roots): route it to the agent it concerns. */
  #childRequest(message: JsonRpcRequest): void {
    // Reusing the id of one still unanswered: any answer, even a refusal, would read as the first's.
    if (this.#table.hasAsk(message.id))
      return this.#log.warn(`stdio server reused the id ${JSON.stringify(message.id)}; ignored`)
    if (message.method === 'ping') {
      this.#trySend({ jsonrpc: '2.0', id: message.id, result: {} })
      return
    }
    const placed = childAskPlacement(message.method, message.params, this.#table, this.#sessions)
    if ('refusal' in placed) {
      this.#log.debug(`stdio server's ${message.method} refused: ${placed.refusal}`)
      return this.#trySend(errorResponse(message.id, placed.code, placed.refusal))
    }
    const { session, relatedTo } = placed
    const elicitation = askedUrlElicitation(message.method, message.params)
    if (elicitation !== undefined) {
      this.#elicitations.note(STDIO, elicitation, { sessionId: session.id, relatedTo })
    }
    const agentId = session.nextAskId()
    this.#table.addAsk(message.id, { session, agentId, relatedTo })
    session.sink.deliver({ ...message, id: agentId }, relatedTo)
  }

  /** The child is gone: its sessions end (agents initialize again) and open calls fail. */
  #onChildExit(exit: StdioExit): void {
    this.#deadGeneration = exit.generation
    this.#gate.reset()
    this.#table.clear()
    this.#tasks.clear()
    this.#levels.clear()
    this.#elicitations.clear()
    // A new server has no subscriptions; the sessions that held them end below.
    for (const session of this.#sessions) this.#subscriptions.dropSession(session.id)
    const how = exit.error ? `failed (${exit.error.message})` : 'exited'
    const reason =
      exit.restartInMs === null
        ? (exit.error?.message ?? 'the stdio server stopped')
        : `the stdio server ${how} and is restarting; this session has ended, initialize again`
    let ended = 0
    for (const session of [...this.#sessions]) {
      // A session still waiting in the gate never talked to the dead child: it can wait on.
      if (this.#gate.holds(session)) continue
      this.#sessions.delete(session)
      session.closed = true
      session.inFlight.clear()
      session.asks.clear()
      session.sink.end(reason)
      ended += 1
    }
    if (ended > 0) this.#log.info(`stdio server gone; ended ${ended} client session(s)`)
  }

  #trySend(message: JsonRpcMessage): void {
    try {
      this.#sup.send(message)
      this.#dropping = false
    } catch (err) {
      const what = 'method' in message ? message.method : 'an answer'
      const text = `${what} not delivered to the stdio server: ${(err as Error).message}`
      // A server that stops reading loses messages until it reads again: said once per episode.
      if (err instanceof StdioBackloggedError && !this.#dropping) {
        this.#dropping = true
        this.#log.warn(`${text}; further messages are dropped until it reads`)
      } else this.#log.debug(text)
    }
  }
}
