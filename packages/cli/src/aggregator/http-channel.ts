/**
 * An HTTP upstream as a channel: a small Streamable HTTP client (MCP 2025-03-26 and later). Each
 * message is POSTed; answers come back as JSON or on the POST's SSE stream, and the standalone GET
 * stream carries what the server sends on its own. `Mcp-Session-Id` and `MCP-Protocol-Version` are
 * taken from the initialize exchange.
 *
 * Written here rather than taken from the MCP SDK because the aggregator needs what the SDK client
 * hides: which POST stream ended without its answer (the request fails at once instead of
 * hanging), and that the server forgot the session (404, or 400 naming the session as some servers
 * answer, confirmed by a ping: http-session.ts) so the link can initialize again; the SDK does
 * not re-initialize (SDK issue #1708).
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
  MAX_QUOTED_BODY_BYTES,
  MAX_SSE_EVENT_CHARS,
  messagesIn,
  readBodyText,
  readSseData,
  sessionGone,
} from './http-response.js'
import { httpErrorAnswer, unanswerable, unansweredJson } from './answer-failures.js'
import { shownUrl } from '../shown-url.js'
import { DROPPED, PostTracker, wasDropped } from './post-tracker.js'
import { endSession, POST_HEADERS, PROBE_TIMEOUT_MS, SessionProbe } from './http-session.js'
import type { ChannelEvents, UpstreamChannel } from './upstream-channel.js'

/** Options of `HttpChannel`. */
export interface HttpChannelOptions {
  /** The upstream's MCP endpoint, e.g. `http://127.0.0.1:3000/mcp`. */
  readonly url: string
  /** Upstream name, for log messages. */
  readonly name: string
  readonly logger: Logger
  readonly countBytes?: boolean
  /** Wait before reopening a GET stream that ended. Default 1 s. */
  readonly reopenGetMs?: number
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
  readonly #probe = new SessionProbe((body) =>
    this.#request('POST', POST_HEADERS, AbortSignal.timeout(PROBE_TIMEOUT_MS), body),
  )
  #events: ChannelEvents | undefined
  #sessionId: string | undefined
  #protocolVersion: string | undefined
  #initializeId: JsonRpcId | undefined
  /** Bumped when a session starts or is lost: work of an older epoch is void. */
  #epoch = 0
  #getOpen = false
  #getTimer: NodeJS.Timeout | undefined
  #closed = false

  constructor(options: HttpChannelOptions) {
    this.#url = new URL(options.url)
    this.#shown = shownUrl(this.#url)
    this.#opts = options
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
    clearTimeout(this.#getTimer)
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
    const problem = text.trim() === '' ? null : this.#emitText(epoch, text, seen, requestId)
    if (!answered)
      this.#emit(epoch, this.#failure(requestId, unansweredJson(status, text, problem)))
  }

  async #onHttpError(response: Response, requestId: JsonRpcId | undefined, epoch: number) {
    const status = response.statusCode
    const text = (await readBodyText(response.body, MAX_QUOTED_BODY_BYTES)).text.slice(0, 2048)
    if (this.#sessionId !== undefined && sessionGone(status, text)) {
      if (epoch !== this.#epoch || !(await this.#probe.known(epoch))) {
        const reason = `${this.#shown} no longer knows our session (HTTP ${status})`
        if (epoch === this.#epoch) this.#lose(reason)
        throw new Error(reason)
      }
    }
    if (requestId === undefined) {
      throw new Error(
        `HTTP ${status} from ${this.#shown}: ${jsonRpcErrorIn(text)?.message ?? text}`,
      )
    }
    this.#emit(epoch, httpErrorAnswer(requestId, status, text, this.#shown))
  }

  /** Read a POST's SSE stream; a request it never answered gets an error answer. */
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
    const cause = await this.#readEvents(response, epoch, seen, requestId)
    this.#aborts.delete(abort)
    this.#posts.forget(abort)
    if (wasDropped(abort)) return
    if (answered || requestId === undefined || epoch !== this.#epoch || this.#closed) return
    const what = cause
      ? `the response stream broke before the answer (${cause})`
      : 'the response stream ended before the answer'
    this.#emit(epoch, this.#failure(requestId, what))
  }

  /**
   * Emit the messages of an SSE body (a POST's for request `stream`, or the GET stream's);
   * resolves with the error that ended it, if any.
   */
  async #readEvents(
    response: Response,
    epoch: number,
    seen: (message: JsonRpcMessage) => void,
    stream?: JsonRpcId,
  ): Promise<string | undefined> {
    const log = this.#opts.logger
    const name = this.#opts.name
    try {
      await readSseData(response.body, {
        onData: (data, bytes) => {
          this.#count('in', bytes)
          const problem = this.#emitText(epoch, data, seen, stream)
          if (problem === 'parse_error') log.warn(`[${name}] skipped an SSE event that is not JSON`)
          else if (problem !== null) log.warn(`[${name}] skipped an SSE event that is not JSON-RPC`)
        },
        onDropped: () =>
          log.warn(`[${name}] skipped an SSE event of more than ${MAX_SSE_EVENT_CHARS} characters`),
      })
      return undefined
    } catch (err) {
      return describeError(err)
    }
  }

  /**
   * Emit the valid messages of JSON-RPC `text` (one, or a batch), skipping invalid ones with a
   * warning. Returns what is wrong when the text is not JSON-RPC at all, else null.
   */
  #emitText(
    epoch: number,
    text: string,
    seen: (message: JsonRpcMessage) => void,
    stream?: JsonRpcId,
  ): 'parse_error' | 'invalid_request' | null {
    const read = messagesIn(text)
    if (typeof read === 'string') return read
    for (const why of read.skipped) {
      this.#opts.logger.warn(`[${this.#opts.name}] invalid JSON-RPC message skipped: ${why}`)
    }
    for (const message of read.messages) {
      seen(message)
      this.#emit(epoch, message, stream)
    }
    return null
  }

  /** Open the standalone GET stream; reopen it when it ends, while the session lives. */
  #openGet(epoch: number): void {
    if (this.#closed || epoch !== this.#epoch || this.#getOpen) return
    this.#getOpen = true
    void this.#serveGet(epoch).finally(() => {
      this.#getOpen = false
    })
  }

  async #serveGet(epoch: number): Promise<void> {
    const abort = this.#track()
    let response: Response
    try {
      response = await this.#request('GET', { accept: 'text/event-stream' }, abort.signal)
    } catch (err) {
      this.#aborts.delete(abort)
      this.#unreachable(err, epoch)
      return
    }
    try {
      const status = response.statusCode
      if (status === 405 || status >= 400 || !isStream(response)) {
        const text = (await readBodyText(response.body, MAX_QUOTED_BODY_BYTES)).text.slice(0, 2048)
        if (status !== 405 && sessionGone(status, text) && epoch === this.#epoch) {
          this.#lose(`${this.#shown} no longer knows our session (HTTP ${status})`)
        } else if (status !== 405) {
          this.#opts.logger.debug(`[${this.#opts.name}] GET stream refused (HTTP ${status})`)
        }
        return
      }
      await this.#readEvents(response, epoch, () => {})
    } finally {
      this.#aborts.delete(abort)
    }
    if (epoch !== this.#epoch || this.#closed) return
    // The stream ended: the server may have gone away. Reopening tells (refused, or 404).
    this.#getTimer = setTimeout(() => this.#openGet(epoch), this.#opts.reopenGetMs ?? 1_000)
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
    clearTimeout(this.#getTimer)
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
