/**
 * Single-upstream HTTP mode: each tunnelled request goes to the local Streamable HTTP server as
 * is (Host set to the local server's, path mapped onto the upstream URL's), and the response
 * streams back. An unreachable server gives the agent a 502 naming the URL and the cause; an
 * answer that cannot carry what an agent's requests wait for (a 202, an SSE stream that ends
 * before their answers) is answered for them (`relay-call.ts`), as the agent would wait for it.
 *
 * This is the client's per-call hot path, so it drives undici's dispatcher with a handler of its
 * own (`RelayCall`, relay-call.ts) instead of `request()`: no response stream, promise chain or abort signal per
 * call, and backpressure by pausing the dispatcher rather than through a Readable.
 */
import {
  ERROR_HEADER,
  JSONRPC_CODE,
  FOREIGN_SESSION_HEADER,
  formatSseEvent,
  POLICY_STATUS,
  refusal,
  refusalIdsOf,
  refusalJson,
  responseKind,
  setOwnField,
  type JsonRpcId,
  type Logger,
  type RefusedId,
} from '@burrow/protocol'
import { Agent } from 'undici'
import { replyProblem } from '../front/json-reply.js'
import { AnswerStates } from './answer-states.js'
import type { LocalRequest, LocalResponse, RequestHandler } from './local-exchange.js'
import { presentedStates, UNREADABLE } from './presented-states.js'
import { RelayCall } from './relay-call.js'
import { RequestStateOwners } from './request-state-owners.js'
import { SessionOwners } from './session-owners.js'
import { continueSkippingConnector } from './skip-continue.js'

/** The agent the edge admitted a request as, on `oauth` and `token` tunnels (the edge sets it). */
const AGENT = 'burrow-agent'

/** Relays to one local HTTP MCP server. */
export class HttpRelay implements RequestHandler {
  private readonly upstream: URL
  private readonly origin: string
  private readonly log: Logger
  private readonly dispatcher = new Agent({
    keepAliveTimeout: 10_000,
    connections: 256,
    // An unasked `100 Continue` is skipped, as undici skips 102 and 103 (skip-continue.ts).
    connect: continueSkippingConnector(),
  })
  /** Which agent opened each session (`oauth` and `token` tunnels name the agent). */
  private readonly owners = new SessionOwners()
  /** Which agents the server gave its 2026-07-28 `requestState`s to (same tunnels). */
  private readonly states = new RequestStateOwners()

  constructor(upstream: string, log: Logger) {
    this.upstream = new URL(upstream)
    this.origin = this.upstream.origin
    this.log = log
  }

  handle(req: LocalRequest, res: LocalResponse): Promise<void> {
    const session = req.headers['mcp-session-id']
    if (session !== undefined && !this.owners.allows(session, req.headers[AGENT])) {
      // Another agent's session is as unknown as any other id: 404, and the agent initializes.
      // Unless no agent opened it, the edge is told it goes on (for the tunnel's session count).
      const problem = { status: 404, message: 'Session not found' }
      const headers: Record<string, string> = this.owners.known(session)
        ? { [FOREIGN_SESSION_HEADER]: '1' }
        : {}
      replyProblem(res, problem, JSONRPC_CODE.sessionNotFound, headers, refusalIdsOf(req.body))
      return Promise.resolve()
    }
    if (req.method === 'POST' && !this.presentsOwnStates(req, res)) return Promise.resolve()
    // Own fields, here and for the answer's: a field named `__proto__` stays a field.
    const headers: Record<string, string> = {}
    // The body is whole (its length is undici's to say), so an `Expect` the edge met has nothing
    // left to wait for; undici refuses to send one.
    for (const name in req.headers)
      if (name !== 'content-length' && name !== 'expect')
        setOwnField(headers, name, req.headers[name]!)
    return new Promise((resolve) => {
      const call = new RelayCall(this, req, res, resolve)
      this.dispatcher.dispatch(
        {
          origin: this.origin,
          path: this.pathFor(req.path),
          method: req.method,
          headers,
          body: req.body.length > 0 ? req.body : null,
          headersTimeout: 0,
          bodyTimeout: 0,
        },
        call,
      )
    })
  }

  async close(): Promise<void> {
    await this.dispatcher.close()
  }

  /**
   * The public path `/mcp?q` maps onto the upstream URL's path and query, with the agent's query
   * parameters added, but for those the upstream URL sets: the user's win (a key or a setting
   * given there cannot be dropped or changed by an agent; before, any agent query replaced the
   * upstream URL's whole, found by a hostile review).
   */
  pathFor(publicPath: string): string {
    const q = publicPath.indexOf('?')
    const own = this.upstream.search
    if (q === -1 || q === publicPath.length - 1) return this.upstream.pathname + own
    const theirs = publicPath.slice(q + 1)
    if (own === '' || own === '?') return `${this.upstream.pathname}?${theirs}`
    const set =
      this.#ownNames ?? (this.#ownNames = new Set([...new URLSearchParams(own).keys()].map(read)))
    const added = theirs
      .split('&')
      .filter(
        (pair) => pair !== '' && !set.has(read(new URLSearchParams(pair).keys().next().value!)),
      )
    return this.upstream.pathname + own + (added.length > 0 ? `&${added.join('&')}` : '')
  }

  /** The parameter names the upstream URL's query sets, as `read` reads them (read once). */
  #ownNames: ReadonlySet<string> | undefined

  /** The upstream URL a request went to, for messages: its query hidden (as `shown-url.ts` shows a URL). */
  targetFor(publicPath: string): string {
    const path = this.pathFor(publicPath)
    const q = path.indexOf('?')
    return q === -1 ? this.origin + path : `${this.origin}${path.slice(0, q)}?…`
  }

  /** @internal A call could not reach the upstream: a 502 envelope with the request's ids. */
  unreachable(req: LocalRequest, res: LocalResponse, target: string, err: unknown): void {
    const cause = describe(err)
    this.log.warn(`upstream ${target} unreachable: ${cause}`)
    refuse(
      req,
      res,
      'upstream unreachable',
      `the local MCP server at ${target} is unreachable: ${cause}`,
    )
  }

  /** @internal The upstream answered a status HTTP does not have (600–999). */
  badStatus(req: LocalRequest, res: LocalResponse, target: string, status: number): void {
    this.log.warn(`upstream ${target} answered status ${status}, which is not an HTTP status`)
    refuse(
      req,
      res,
      'upstream answered an invalid status',
      `the local MCP server at ${target} answered status ${status}, which is not an HTTP status (100–599)`,
    )
  }

  /** @internal The upstream failed after its response started. */
  failedMidway(res: LocalResponse, target: string, err: Error): void {
    this.log.warn(`upstream ${target} failed mid-response: ${err.message}`)
    res.destroy?.(`upstream ${target} failed mid-response: ${err.message}`)
  }

  /**
   * @internal The upstream answered `req` with 202 (accepted, no answer). Legitimate for a POST
   * of notifications and answers; one holding requests is answered here with the envelope, and
   * true returned: an agent's SDK reads no answer from a 202, whatever its body, and would wait
   * for its own timeout.
   */
  acceptedWithoutAnswer(req: LocalRequest, res: LocalResponse, target: string): boolean {
    const ids = refusalIdsOf(req.body)
    if (ids === null || (Array.isArray(ids) && ids.length === 0)) return false
    this.log.warn(`upstream ${target} answered a request with 202 and no response`)
    refuse(
      req,
      res,
      'upstream answered without a response',
      `the local MCP server at ${target} answered the request with 202 and no response`,
      ids,
    )
    return true
  }

  /**
   * @internal The SSE answer to `req` ended (or broke, with `broke`) without the answers to
   * `ids`: an error event answering each, the envelope's JSON-RPC error, to end the stream with
   * (after a blank line when it stopped inside an event).
   */
  unansweredEvents(
    req: LocalRequest,
    ids: readonly JsonRpcId[],
    midEvent: boolean,
    broke: Error | null,
  ): Buffer {
    const target = this.targetFor(req.path)
    const what = broke
      ? `broke off its response stream before the answer (${broke.message})`
      : 'ended its response stream before the answer'
    this.log.warn(`upstream ${target} ${what}: the agent is answered with an error`)
    const message = `the local server ${what}`
    const reason = `the local MCP server at ${target} ${what}`
    let text = midEvent ? '\n\n' : ''
    for (const id of ids) {
      const data = JSON.stringify(refusal('upstream_unreachable', message, reason, id).body)
      text += formatSseEvent({ event: 'message', data, id: null })
    }
    return Buffer.from(text)
  }

  /** @internal The head of the upstream's answer to `req`: sessions opened and ended. */
  answered(req: LocalRequest, status: number, sessionGiven: unknown): void {
    const session = req.headers['mcp-session-id']
    if (session === undefined) {
      const agent = req.headers[AGENT]
      if (agent !== undefined && typeof sessionGiven === 'string' && status < 300)
        this.owners.opened(sessionGiven, agent)
    } else if (status === 404 || (req.method === 'DELETE' && status < 300)) {
      this.owners.ended(session)
    }
  }

  /**
   * Whether every `requestState` a POST presents was given to its agent (always, on public
   * tunnels); otherwise the request is answered here, as a state this server never issued.
   */
  private presentsOwnStates(req: LocalRequest, res: LocalResponse): boolean {
    const agent = req.headers[AGENT]
    if (agent === undefined) return true
    const states = presentedStates(req.body)
    if (states !== UNREADABLE && states.every((state) => this.states.allows(state, agent)))
      return true
    const problem =
      states === UNREADABLE
        ? { status: 400, message: 'Invalid Request: the body could not be read as JSON-RPC' }
        : { status: 400, message: 'Invalid params: requestState is not one this server issued' }
    const code = states === UNREADABLE ? JSONRPC_CODE.invalidRequest : JSONRPC_CODE.invalidParams
    replyProblem(res, problem, code, undefined, refusalIdsOf(req.body))
    return false
  }

  /**
   * @internal Where the states of the upstream's answer to `req` are read, or null: only an
   * agent's POST answered with JSON or SSE (2xx) can be given one to bind.
   */
  statesOf(req: LocalRequest, status: number, contentType: unknown): AnswerStates | null {
    const agent = req.headers[AGENT]
    if (agent === undefined || req.method !== 'POST' || status < 200 || status > 299) return null
    const format = responseKind(typeof contentType === 'string' ? contentType : undefined)
    if (format === 'other') return null
    const target = this.targetFor(req.path)
    return new AnswerStates(
      format,
      (state) => this.states.given(state, agent),
      () =>
        this.log.warn(
          `upstream ${target} answered a request with a message naming a requestState, too large to read (over 4 MiB): a state in it is not bound to the agent, and its retry will be refused`,
        ),
    )
  }

  /** @internal The upstream answered 400 for a session it forgot; the agent is told 404. */
  sessionGone(req: LocalRequest, target: string): void {
    const session = req.headers['mcp-session-id']
    if (session !== undefined) this.owners.ended(session)
    this.log.debug(
      `upstream ${target} no longer knows session ${req.headers['mcp-session-id']}; answering 404 so the agent re-initializes`,
    )
  }
}

/** Answer `req` with the 502 envelope (`upstream_unreachable`) carrying its ids. */
function refuse(
  req: LocalRequest,
  res: LocalResponse,
  message: string,
  reason: string,
  ids: RefusedId | readonly RefusedId[] = refusalIdsOf(req.body),
): void {
  const body = refusalJson('upstream_unreachable', message, reason, ids)
  res.writeHead(POLICY_STATUS.upstream_unreachable, {
    'content-type': 'application/json',
    [ERROR_HEADER]: 'upstream_unreachable',
  })
  res.write(Buffer.from(body))
  res.end()
}

function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err)
  const code = (err as { code?: unknown }).code
  const cause = (err as { cause?: unknown }).cause
  const detail = cause instanceof Error ? cause.message : err.message
  return typeof code === 'string' && !detail.includes(code) ? `${code}: ${detail}` : detail
}

/**
 * A query parameter's name as the loosest server framework reads it: without case (ASP.NET),
 * without a `[…]` suffix (PHP's and `qs`'s arrays and objects), with `.` and spaces as `_`
 * (PHP). An agent's parameter whose name so reads as one the upstream URL sets is left out, so
 * that no framework can read it in place of the user's (found by a review).
 */
function read(name: string): string {
  const bracket = name.indexOf('[')
  return (bracket === -1 ? name : name.slice(0, bracket)).toLowerCase().replace(/[. ]/g, '_')
}
