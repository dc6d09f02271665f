/**
 * An HTTP upstream as a channel: a small Streamable HTTP client (MCP 2025-03-26 and later). Each
 * message is POSTed; answers come back as JSON or on the POST's SSE stream, and the standalone GET
 * stream carries what the server sends on its own. `Mcp-Session-Id` and `MCP-Protocol-Version` are
 * taken from the initialize exchange.
 *
 * Written here rather than taken from the MCP SDK because the aggregator needs what the SDK client
 * hides: which POST stream ended without its answer (the request fails instead of hanging, once
 * the stream cannot be resumed: stream-resumption.ts), and that the server forgot the session
 * (404, or 400 naming the session as some servers answer, confirmed by a ping: http-session.ts)
 * so the link can initialize again; the SDK does not re-initialize (SDK issue #1708).
 */
import { Agent, request, type Dispatcher } from 'undici'
import type { Logger } from '../log/logger.js'
import {
  errorResponse,
  isRequest,
  JSONRPC_CODE,
  type JsonRpcError,
  type JsonRpcId,
  type JsonRpcMessage,
} from '@burrow/protocol'
import {
  describeError,
  header,
  isAnswerTo,
  isStream,
  jsonRpcErrorIn,
  MAX_ANSWER_BYTES,
  quotedBody,
  readBodyText,
  sessionGone,
  type SseCursor,
} from './http-response.js'
import { httpErrorAnswer, unanswerable, unansweredJson } from './answer-failures.js'
import { shownUrl } from '../shown-url.js'
import { DROPPED, PostTracker, wasDropped } from './post-tracker.js'
import { endSession, POST_HEADERS, PROBE_TIMEOUT_MS, SessionProbe } from './http-session.js'
import type { ChannelEvents, UpstreamChannel } from './upstream-channel.js'
import { RESUME_LIMITS, resumeStream, type ResumeLimits } from './stream-resumption.js'
import { StandaloneGet } from './standalone-get.js'
import { UpstreamMessages } from './upstream-messages.js'

/** Options of `HttpChannel`. */
export interface HttpChannelOptions {
  /** The upstream's MCP endpoint, e.g. `http://127.0.0.1:3000/mcp`. */
  readonly url: string
  /** Upstream name, for log messages. */
  readonly name: string
  readonly logger: Logger
  readonly countBytes?: boolean
  /** Least wait before reopening a GET stream that ended (its `retry` may ask more). Default 1 s. */
  readonly reopenGetMs?: number
  /** Bounds of resuming a request's stream. Default `RESUME_LIMITS`. */
  readonly resumeLimits?: ResumeLimits
}

type Response = Dispatcher.ResponseData

/** A Streamable HTTP client connection to one upstream. */
export class HttpChannel implements UpstreamChannel {
  /** Nothing restarts an HTTP server for us: retries are on a timer. */
  readonly canRetry = true
  readonly #url: URL
  /** The URL as messages show it (`shown-url.ts`). */
  readonly #shown: string
  readonly #opts: HttpChannelOptions
  readonly #dispatcher = new Agent({ keepAliveTimeout: 10_000 })
  readonly #aborts = new Set<AbortController>()
  readonly #posts = new PostTracker()
  readonly #messages: UpstreamMessages
  readonly #probe = new SessionProbe((body) =>
    this.#request('POST', POST_HEADERS, AbortSignal.timeout(PROBE_TIMEOUT_MS), body),
  )
  #events: ChannelEvents | undefined
  #sessionId: string | undefined
  #protocolVersion: string | undefined
  #initializeId: JsonRpcId | undefined
  /** Bumped when a session starts or is lost: work of an older epoch is void. */
  #epoch = 0
  /** The current session's GET stream, once opened. */
  #get: StandaloneGet | undefined
  #closed = false

  constructor(options: HttpChannelOptions) {
    this.#url = new URL(options.url)
    this.#shown = shownUrl(this.#url)
    this.#opts = options
    this.#messages = new UpstreamMessages(options.logger, options.name, (n) => this.#count('in', n))
  }

  start(events: ChannelEvents): void {
    this.#events = events
    queueMicrotask(() => {
      if (!this.#closed) events.open()
    })
  }

  async send(message: JsonRpcMessage): Promise<void> {
    if (this.#closed) throw new Error('the aggregator is shutting down')
    if (isRequest(message) && message.method === 'initialize') this.#newSession(message.id)
    const epoch = this.#epoch
    const body = JSON.stringify(message)
    const abort = this.#track()
    this.#posts.track(message, abort)
    let response: Response
    try {
      response = await this.#request('POST', POST_HEADERS, abort.signal, body)
    } catch (err) {
      this.#aborts.delete(abort)
      this.#posts.forget(abort)
      if (wasDropped(abort)) throw DROPPED
      throw new Error(this.#unreachable(err, epoch), { cause: err })
    }
    this.#count('out', Buffer.byteLength(body))
    try {
      await this.#onPostResponse(message, response, epoch, abort)
    } finally {
      if (!isStream(response)) {
        this.#aborts.delete(abort)
        this.#posts.forget(abort)
      }
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    this.#get?.stop()
    if (this.#sessionId !== undefined) await this.#deleteSession()
    for (const abort of this.#aborts) abort.abort()
    this.#aborts.clear()
    await this.#dispatcher.destroy()
  }

  async #onPostResponse(
    message: JsonRpcMessage,
    response: Response,
    epoch: number,
    abort: AbortController,
  ): Promise<void> {
    const status = response.statusCode
    const requestId = isRequest(message) ? message.id : undefined
    if (requestId !== undefined && requestId === this.#initializeId && epoch === this.#epoch) {
      const sessionId = header(response, 'mcp-session-id')
      if (sessionId !== undefined) this.#sessionId = sessionId
    }
    if (status >= 400) return this.#onHttpError(response, requestId, epoch)
    const refused = requestId === undefined ? null : unanswerable(response, this.#url)
    if (requestId !== undefined && refused !== null) {
      await response.body.dump().catch(() => {})
      return this.#emit(epoch, this.#failure(requestId, refused))
    }
    if (isStream(response)) {
      void this.#readPostStream(response, epoch, requestId, abort)
      return
    }
    const { text, whole, broken } = await readBodyText(response.body, MAX_ANSWER_BYTES)
    // A body that broke (the server reset or crashed mid-answer) fails the call, as a server that
    // could not be reached does: read as what came, an empty one left the call unanswered.
    if (broken !== null) {
      if (wasDropped(abort)) throw DROPPED
      throw new Error(`${this.#shown} broke off its answer (HTTP ${status}): ${broken.message}`, {
        cause: broken,
      })
    }
    if (!whole) {
      const what = `the answer is larger than ${MAX_ANSWER_BYTES / 1024 / 1024} MiB (HTTP ${status})`
      this.#opts.logger.warn(`[${this.#opts.name}] ${what}: not read`)
      if (requestId !== undefined) this.#emit(epoch, this.#failure(requestId, what))
      return
    }
    if (requestId === undefined) {
      if ('method' in message && message.method === 'notifications/initialized') {
        this.#openGet(epoch)
      }
      return
    }
    this.#count('in', Buffer.byteLength(text))
    let answered = false
    const seen = (m: JsonRpcMessage) => (answered ||= isAnswerTo(m, requestId))
    const deliver = this.#deliver(epoch, seen, requestId)
    const problem = text.trim() === '' ? null : this.#messages.text(text, deliver)
    if (!answered)
      this.#emit(epoch, this.#failure(requestId, unansweredJson(status, text, problem)))
  }

  async #onHttpError(response: Response, requestId: JsonRpcId | undefined, epoch: number) {
    const status = response.statusCode
    const text = await quotedBody(response)
    const gone = await this.#forgotten(status, text, epoch)
    if (gone !== null) throw new Error(gone)
    if (requestId === undefined) {
      throw new Error(
        `HTTP ${status} from ${this.#shown}: ${jsonRpcErrorIn(text)?.message ?? text}`,
      )
    }
    this.#emit(epoch, httpErrorAnswer(requestId, status, text, this.#shown))
  }

  /**
   * Read a POST's SSE stream, resumed (`GET` with `Last-Event-ID`) while it ends before the answer
   * after an event id; a request it never answered gets an error answer. Resumed streams share
   * the POST's abort, so a cancelled call stops resuming.
   */
  async #readPostStream(
    response: Response,
    epoch: number,
    requestId: JsonRpcId | undefined,
    abort: AbortController,
  ): Promise<void> {
    let answered = false
    // The answer ends the stream (MCP: the server closes it then); one a server kept open would
    // hold its connection for ever, one per call (found by hostile review).
    const seen = (message: JsonRpcMessage): void => {
      if (!isAnswerTo(message, requestId)) return
      answered = true
      abort.abort(DROPPED)
    }
    const deliver = this.#deliver(epoch, seen, requestId)
    const cursor: SseCursor = { lastEventId: null, retryMs: null }
    const cause = await this.#messages.sse(response, deliver, cursor)
    const over = () => answered || abort.signal.aborted || epoch !== this.#epoch || this.#closed
    let gaveUp: string | null = null
    if (requestId !== undefined && cursor.lastEventId !== null && !over()) {
      const resumer = {
        // A server that cannot be reached is lost, as on a POST (its calls fail at once).
        open: (lastEventId: string, signal: AbortSignal) =>
          this.#request(
            'GET',
            { accept: 'text/event-stream', 'last-event-id': lastEventId },
            signal,
          ).catch((err: unknown) => {
            if (!signal.aborted) this.#unreachable(err, epoch)
            throw err
          }),
        read: (resumed: Response, at: SseCursor) => this.#messages.sse(resumed, deliver, at),
        refused: (refusal: Response) => this.#refusal(refusal, epoch),
        over,
      }
      const limits = this.#opts.resumeLimits ?? RESUME_LIMITS
      gaveUp = await resumeStream(resumer, cursor, abort.signal, limits)
    }
    this.#aborts.delete(abort)
    this.#posts.forget(abort)
    if (wasDropped(abort)) return
    if (answered || requestId === undefined || epoch !== this.#epoch || this.#closed) return
    const ended = cause
      ? `the response stream broke before the answer (${cause})`
      : 'the response stream ended before the answer'
    this.#emit(epoch, this.#failure(requestId, gaveUp === null ? ended : `${ended}, and ${gaveUp}`))
  }

  /** What to quote of a refused resumption; a session the server forgot is lost. */
  async #refusal(response: Response, epoch: number): Promise<string> {
    const text = await quotedBody(response)
    await this.#forgotten(response.statusCode, text, epoch)
    return jsonRpcErrorIn(text)?.message ?? text
  }

  /**
   * Why the session of `epoch` is gone when a refusal says so and a ping under it confirms it
   * (the connection is then lost), or null.
   */
  async #forgotten(status: number, text: string, epoch: number): Promise<string | null> {
    if (this.#sessionId === undefined || !sessionGone(status, text)) return null
    if (epoch === this.#epoch && (await this.#probe.known(epoch))) return null
    const reason = `${this.#shown} no longer knows our session (HTTP ${status})`
    if (epoch === this.#epoch) this.#lose(reason)
    return reason
  }

  /** What delivers the messages of `epoch`'s bodies, after `seen` (on `stream`: a request's). */
  #deliver(epoch: number, seen: (m: JsonRpcMessage) => void, stream?: JsonRpcId) {
    return (message: JsonRpcMessage): void => {
      seen(message)
      this.#emit(epoch, message, stream)
    }
  }

  /** Open the standalone GET stream of the session of `epoch`, if it is still current. */
  #openGet(epoch: number): void {
    if (this.#closed || epoch !== this.#epoch) return
    const limits = this.#opts.resumeLimits ?? RESUME_LIMITS
    const io = {
      get: (headers: Record<string, string>, signal: AbortSignal) =>
        this.#request('GET', headers, signal),
      read: (response: Response, cursor: SseCursor) =>
        this.#messages.sse(
          response,
          this.#deliver(epoch, () => {}),
          cursor,
        ),
      lose: (status: number) => {
        if (epoch === this.#epoch)
          this.#lose(`${this.#shown} no longer knows our session (HTTP ${status})`)
      },
      unreachable: (err: unknown) => void this.#unreachable(err, epoch),
      debug: (line: string) => this.#opts.logger.debug(`[${this.#opts.name}] ${line}`),
    }
    this.#get ??= new StandaloneGet(io, this.#opts.reopenGetMs ?? 1_000, limits.maxDelayMs)
    this.#get.start()
  }

  #emit(epoch: number, message: JsonRpcMessage, stream?: JsonRpcId): void {
    if (epoch !== this.#epoch || this.#closed || !this.#events) return
    if ('result' in message && message.id === this.#initializeId) {
      const version = message.result.protocolVersion
      if (typeof version === 'string') this.#protocolVersion = version
    }
    this.#events.message(message, stream)
  }

  /** A new initialize: forget the old session and everything in flight on it. */
  #newSession(initializeId: JsonRpcId): void {
    this.#reset()
    this.#protocolVersion = undefined
    this.#initializeId = initializeId
  }

  /** The connection is gone; report it once per epoch. */
  #lose(reason: string): void {
    this.#reset()
    this.#events?.lost(reason)
  }

  #reset(): void {
    this.#epoch += 1
    for (const abort of this.#aborts) abort.abort()
    this.#aborts.clear()
    this.#posts.clear()
    this.#get?.stop()
    this.#get = undefined
    this.#sessionId = undefined
  }

  /** The reason a request could not reach the server; loses the connection if still current. */
  #unreachable(err: unknown, epoch: number): string {
    const reason = `${this.#shown} is unreachable: ${describeError(err)}`
    if (epoch === this.#epoch && !this.#closed) this.#lose(reason)
    return reason
  }

  /** An error answer for a request the server did not answer properly. */
  #failure(requestId: JsonRpcId, what: string): JsonRpcError {
    const message = `upstream "${this.#opts.name}" at ${this.#shown}: ${what}`
    return errorResponse(requestId, JSONRPC_CODE.serverError, message)
  }

  #headers(base: Record<string, string>): Record<string, string> {
    const headers = { ...base }
    if (this.#sessionId !== undefined) headers['mcp-session-id'] = this.#sessionId
    if (this.#protocolVersion !== undefined) headers['mcp-protocol-version'] = this.#protocolVersion
    return headers
  }

  #track(): AbortController {
    const abort = new AbortController()
    this.#aborts.add(abort)
    return abort
  }

  #count(direction: 'in' | 'out', n: number): void {
    if (this.#opts.countBytes) this.#events?.bytes(direction, n)
  }

  #request(
    method: 'GET' | 'POST' | 'DELETE',
    headers: Record<string, string>,
    signal: AbortSignal,
    body?: string,
  ): Promise<Response> {
    return request(this.#url, {
      method,
      headers: this.#headers(headers),
      body: body ?? null,
      signal,
      dispatcher: this.#dispatcher,
      headersTimeout: 0,
      bodyTimeout: 0,
    })
  }

  async #deleteSession(): Promise<void> {
    const failed = await endSession((signal) => this.#request('DELETE', {}, signal))
    if (failed === null) return
    this.#opts.logger.debug(`[${this.#opts.name}] DELETE of the session failed: ${failed}`)
  }
}
