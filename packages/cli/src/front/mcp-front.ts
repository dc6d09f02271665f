/**
 * The local MCP Streamable HTTP endpoint that the tunnel streams into in stdio and aggregator modes.
 * It serves both eras side by side: the 2025 revisions (2024-11-05 to 2025-11-25,
 * `LEGACY_PROTOCOL_VERSIONS`) here, with header checks, `Mcp-Session-Id` sessions, JSON or SSE
 * responses, the GET stream and DELETE; and 2026-07-28, whose sessionless requests (told apart by
 * their body: `_meta` revision or `server/discover`) go to `ModernFront`. Where messages go is the
 * business of an `McpBackend`, so the single stdio child and the aggregator share this code.
 *
 * Hanging up counts as cancelling: the request's signal reaches the backend, which tells the
 * server. The front keeps no event store, so streams are not resumable: a GET with the
 * `Last-Event-ID` of a GET stream simply opens a fresh one, and one naming a POST stream's event
 * gets 405. Revision 2026-07-28 drops resumability altogether.
 */
import { randomUUID } from 'node:crypto'
import { silentLogger, type Logger } from '../log/logger.js'
import type { LocalRequest, LocalResponse, RequestHandler } from '../relay/local-exchange.js'
import { FrontSession, isPostEventId } from './front-session.js'
import { getHeaderProblem, postHeaderProblem, protocolVersionProblem } from './http-checks.js'
import {
  BATCHING_PROTOCOL_VERSIONS,
  FOREIGN_SESSION_HEADER,
  isBodyProblem,
  isNotification,
  isRequest,
  JSONRPC_CODE,
  readJsonRpcBody,
  refusalIds,
  type RefusedId,
  type JsonRpcMessage,
  type JsonRpcRequest,
} from '@burrow/protocol'
import type { McpBackend } from './mcp-backend.js'
import { postMessages } from './post-messages.js'
import { ModernFront } from './modern-front.js'
import { reply202, replyProblem } from './json-reply.js'
import type { PostExchange } from './post-exchange.js'

/** Options of `McpFront`. */
export interface McpFrontOptions {
  /** Routes the messages; closed by `McpFront.close()`. */
  readonly backend: McpBackend
  readonly logger?: Logger
  /** The endpoint path; other paths get 404. Default `/mcp`. */
  readonly path?: string
  /** Interval of `: keepalive` comments on SSE streams. Default 15 s; 0 disables them. */
  readonly keepAliveMs?: number
  /** Messages held per session while its GET stream is closed. Default 100. */
  readonly heldMessageLimit?: number
  /** How long held messages stay deliverable. Default 30 s. */
  readonly heldMessageTtlMs?: number
  /** Session id factory (visible ASCII only). Default: random UUIDs. */
  readonly createSessionId?: () => string
  /** How long a 2026-07-28 call waits for the retry after `input_required`. Default 10 min. */
  readonly inputWaitMs?: number
  /**
   * Sessions kept at most. Default 10,000. A new one beyond them ends the session used least
   * recently among those with nothing in flight and no GET stream (its agent gets 404 and
   * initializes again, as MCP provides); when every one is busy, the new one is refused (503).
   */
  readonly maxSessions?: number
  /** Calls of one agent (Burrow-Agent) waiting for its retry at once. Default 1,000. */
  readonly maxParkedPerAgent?: number
}

/** Default of `McpFrontOptions.maxSessions`. */
export const MAX_FRONT_SESSIONS = 10_000

/** An MCP Streamable HTTP server over tunnelled requests. */
export class McpFront implements RequestHandler {
  readonly #backend: McpBackend
  readonly #log: Logger
  readonly #path: string
  readonly #keepAliveMs: number
  readonly #sessions = new Map<string, FrontSession>()
  readonly #opts: McpFrontOptions
  readonly #modern: ModernFront
  #closed = false

  constructor(options: McpFrontOptions) {
    this.#opts = options
    this.#backend = options.backend
    this.#log = options.logger ?? silentLogger
    this.#path = options.path ?? '/mcp'
    this.#keepAliveMs = options.keepAliveMs ?? 15_000
    this.#modern = new ModernFront({
      backend: this.#backend,
      logger: this.#log,
      keepAliveMs: this.#keepAliveMs,
      // A call waiting for input holds a session of the server: they count like sessions.
      maxParked: options.maxSessions ?? MAX_FRONT_SESSIONS,
      ...(options.maxParkedPerAgent === undefined
        ? {}
        : { maxParkedPerAgent: options.maxParkedPerAgent }),
      ...(options.inputWaitMs === undefined ? {} : { inputWaitMs: options.inputWaitMs }),
    })
  }

  /** Number of live sessions. */
  get sessionCount(): number {
    return this.#sessions.size
  }

  /** Answer one tunnelled request. Resolves when its response is complete. */
  async handle(req: LocalRequest, res: LocalResponse): Promise<void> {
    const path = req.path.split('?')[0]
    if (path !== this.#path) {
      return replyProblem(res, {
        status: 404,
        message: `Not Found: the MCP endpoint is ${this.#path}`,
      })
    }
    if (this.#closed) {
      return replyProblem(res, { status: 503, message: 'Service Unavailable: shutting down' })
    }
    switch (req.method) {
      case 'POST':
        return this.#post(req, res)
      case 'GET':
        return this.#get(req, res)
      case 'DELETE':
        return this.#delete(req, res)
      default:
        return replyProblem(res, { status: 405, message: 'Method Not Allowed' }, undefined, {
          allow: 'GET, POST, DELETE',
        })
    }
  }

  /** The backend's start: a single stdio server's first spawn. */
  started(): Promise<void> {
    return this.#backend.started?.() ?? Promise.resolve()
  }

  /** Resolves if the backend's server can never run; pending otherwise. */
  failure(): Promise<Error> {
    return this.#backend.failure?.() ?? new Promise<Error>(() => {})
  }

  /** End every session and stop the backend. */
  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    for (const session of [...this.#sessions.values()]) {
      this.#endSession(session, 'the burrow tunnel is shutting down', true)
    }
    await this.#modern.close()
    await this.#backend.close()
  }

  async #post(req: LocalRequest, res: LocalResponse): Promise<void> {
    // The body is read first, so that every refusal of a single request carries its id.
    const read = readJsonRpcBody(req.body)
    // One id for a single request, one per request for a batch (`refusalIds`).
    const id = isBodyProblem(read) ? null : refusalIds(read)
    const headerProblem = postHeaderProblem(req.headers)
    if (headerProblem) return replyProblem(res, headerProblem, undefined, undefined, id)
    if (isBodyProblem(read)) {
      return replyProblem(
        res,
        { status: 400, message: `${read.message}: ${read.reason}` },
        read.code,
      )
    }
    const body = postMessages(read)
    if (typeof body === 'string') {
      return replyProblem(
        res,
        { status: 400, message: body },
        JSONRPC_CODE.invalidRequest,
        undefined,
        id,
      )
    }
    const { batch, messages } = body
    const backlog = this.#backend.backlog?.()
    if (backlog !== undefined && messages.some(isRequest)) {
      const problem = { status: 503, message: `Service Unavailable: ${backlog}` }
      return replyProblem(res, problem, undefined, { 'retry-after': '1' }, id)
    }
    const modern = read.messages.find(
      (m) => m.kind !== 'response' && m.kind !== 'invalid' && m.era === 'modern',
    )
    if (modern) {
      if (batch) {
        const message = 'Invalid Request: MCP 2026-07-28 sends one message per POST, never a batch'
        return replyProblem(res, { status: 400, message }, JSONRPC_CODE.invalidRequest, {}, id)
      }
      const message = messages[0]!
      // Sessionless: a 2026-07-28 notification needs no answer (cancellation is hanging up).
      if (!isRequest(message)) return reply202(res)
      return this.#modern.request(req, res, message)
    }
    const initialize = messages.find((m) => isRequest(m) && m.method === 'initialize')
    if (initialize) {
      return this.#initialize(req, res, initialize as JsonRpcRequest, messages.length, id)
    }
    const session = this.#sessionOf(req, res, id)
    if (!session) return
    if (batch && !BATCHING_PROTOCOL_VERSIONS.has(session.protocolVersion)) {
      const message =
        `Invalid Request: JSON-RPC batches are not part of MCP ${session.protocolVersion} ` +
        '(removed in 2025-06-18); send one message per POST'
      return replyProblem(res, { status: 400, message }, JSONRPC_CODE.invalidRequest, {}, id)
    }
    const requests = messages.filter(isRequest)
    const busy = requests.find((r) => session.isInFlight(r.id))
    if (busy) {
      const message = `Invalid Request: request id ${JSON.stringify(busy.id)} is already in flight`
      return replyProblem(res, { status: 400, message }, JSONRPC_CODE.invalidRequest, {}, id)
    }
    if (requests.length === 0) {
      this.#forward(session, messages, req.signal)
      return reply202(res)
    }
    const ids = requests.map((r) => r.id)
    const exchange = session.openExchange(res, ids, batch)
    await untilDone(exchange, req.signal, () => this.#forward(session, messages, req.signal))
  }

  async #initialize(
    req: LocalRequest,
    res: LocalResponse,
    message: JsonRpcRequest,
    count: number,
    ids: RefusedId | readonly RefusedId[],
  ): Promise<void> {
    if (count > 1) {
      const problem = { status: 400, message: 'Invalid Request: initialize must be sent alone' }
      return replyProblem(res, problem, JSONRPC_CODE.invalidRequest, {}, ids)
    }
    const existing = req.headers['mcp-session-id']
    if (existing !== undefined && this.#sessions.has(existing)) {
      const problem = {
        status: 400,
        message: 'Invalid Request: this session is already initialized',
      }
      return replyProblem(res, problem, JSONRPC_CODE.invalidRequest, {}, message.id)
    }
    if (!this.#makeRoom()) {
      const problem = {
        status: 503,
        message: `Service Unavailable: all ${this.#sessions.size} sessions are in use; try again later`,
      }
      return replyProblem(res, problem, undefined, {}, message.id)
    }
    const session = this.#openSession()
    session.agent = req.headers['burrow-agent']
    const exchange = session.openExchange(res, [message.id], false, message.id)
    await untilDone(exchange, req.signal, () => session.backend?.request(message, req.signal))
    // An agent that hung up during initialize will never use the session.
    if (!session.initialized && this.#sessions.get(session.id) === session) {
      this.#endSession(session, 'initialize did not complete', true)
    }
  }

  async #get(req: LocalRequest, res: LocalResponse): Promise<void> {
    const problem = getHeaderProblem(req.headers)
    if (problem) return replyProblem(res, problem)
    const session = this.#sessionOf(req, res)
    if (!session) return
    const lastEventId = req.headers['last-event-id']
    if (lastEventId !== undefined && isPostEventId(lastEventId)) {
      // Without an event store a POST stream cannot be resumed. 405 is the answer the SDK client
      // accepts quietly; any other error makes it retry (it resumes even after an error answer).
      const refused = { status: 405, message: 'Method Not Allowed: POST streams are not resumable' }
      return replyProblem(res, refused, undefined, { allow: 'POST, DELETE' })
    }
    if (session.hasStandalone) {
      const conflict = {
        status: 409,
        message: 'Conflict: only one standalone SSE stream is allowed per session',
      }
      return replyProblem(res, conflict)
    }
    await session.serveStandalone(res, req.signal)
  }

  async #delete(req: LocalRequest, res: LocalResponse): Promise<void> {
    const session = this.#sessionOf(req, res)
    if (!session) return
    this.#endSession(session, 'the client ended the session', true)
    res.writeHead(200, {})
    res.end()
  }

  /**
   * Room for one more session: at the bound, end the least recently used one that is idle.
   * False when every session is busy.
   */
  #makeRoom(): boolean {
    if (this.#sessions.size < (this.#opts.maxSessions ?? MAX_FRONT_SESSIONS)) return true
    for (const session of this.#sessions.values()) {
      if (session.busy) continue
      this.#endSession(session, 'the least recently used of too many sessions', true)
      return true
    }
    return false
  }

  #openSession(): FrontSession {
    const id = this.#opts.createSessionId?.() ?? randomUUID()
    const session = new FrontSession({
      id,
      keepAliveMs: this.#keepAliveMs,
      queueLimit: this.#opts.heldMessageLimit ?? 100,
      queueTtlMs: this.#opts.heldMessageTtlMs ?? 30_000,
      logger: this.#log,
    })
    this.#sessions.set(id, session)
    session.backend = this.#backend.openSession(id, {
      deliver: (message, relatedTo) => {
        if (session.deliver(message, relatedTo) === 'failed') {
          this.#endSession(session, 'initialize failed', true)
        }
      },
      end: (reason) => this.#endSession(session, reason, false),
    })
    this.#log.debug(`mcp session ${id} opened`)
    return session
  }

  #endSession(session: FrontSession, reason: string, closeBackend: boolean): void {
    if (this.#sessions.get(session.id) !== session) return
    this.#sessions.delete(session.id)
    session.end(reason)
    if (closeBackend) session.backend?.close()
    this.#log.debug(`mcp session ${session.id} ended: ${reason}`)
  }

  /**
   * The session named by the request's header; otherwise replies 400 or 404 (with `requestId`,
   * the refused request's) and returns null.
   */
  #sessionOf(
    req: LocalRequest,
    res: LocalResponse,
    requestId: RefusedId | readonly RefusedId[] = null,
  ): FrontSession | null {
    const id = req.headers['mcp-session-id']
    if (id === undefined || id === '') {
      const problem = { status: 400, message: 'Bad Request: Mcp-Session-Id header is required' }
      replyProblem(res, problem, undefined, undefined, requestId)
      return null
    }
    const session = this.#sessions.get(id)
    // A session opened as another agent is not this caller's: as unknown as any other id.
    if (!session || session.agent !== req.headers['burrow-agent']) {
      // 404 tells the agent to initialize again (MCP spec, session management); the edge is told
      // when the session goes on as another agent's, and keeps counting it.
      const problem = { status: 404, message: 'Session not found' }
      const headers: Record<string, string> = session ? { [FOREIGN_SESSION_HEADER]: '1' } : {}
      replyProblem(res, problem, JSONRPC_CODE.sessionNotFound, headers, requestId)
      return null
    }
    // Most recently used last: the map's order is the order sessions go in when room is needed.
    this.#sessions.delete(id)
    this.#sessions.set(id, session)
    const problem = protocolVersionProblem(req.headers)
    if (problem) {
      replyProblem(res, problem, undefined, undefined, requestId)
      return null
    }
    return session
  }

  #forward(session: FrontSession, messages: readonly JsonRpcMessage[], signal: AbortSignal): void {
    const backend = session.backend
    if (!backend) return
    for (const message of messages) {
      if (isRequest(message)) backend.request(message, signal)
      else if (isNotification(message)) backend.notify(message)
      else backend.respond(message)
    }
  }
}

/**
 * Run `send` (which hands the POST's messages to the backend) and wait until `exchange` is
 * complete, or abandon it when the agent hangs up. The exchange is registered before `send` runs
 * because a backend may answer at once (a cached initialize, a child that is down).
 */
async function untilDone(
  exchange: PostExchange,
  signal: AbortSignal,
  send: () => void,
): Promise<void> {
  const abandon = (): void => exchange.abandon()
  signal.addEventListener('abort', abandon, { once: true })
  try {
    send()
    await exchange.done
  } finally {
    signal.removeEventListener('abort', abandon)
  }
}

/** A JSON-RPC error body with no id, as the transport spec suggests for refused POSTs. */
