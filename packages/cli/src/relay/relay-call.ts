/**
 * One relayed request: undici's handler callbacks, writing the local server's answer into the
 * tunnel response (`HttpRelay` holds what calls share). An answer that can never carry the
 * answers an agent's requests wait for is answered here instead: a 202 by the refusal envelope,
 * an SSE answer that ends or breaks before them by an error event for each
 * (`streamed-answers.ts`).
 */
import { HOP_BY_HOP_HEADERS, responseKind, setOwnField } from '@burrow/protocol'
import type { Dispatcher } from 'undici'
import type { AnswerStates } from './answer-states.js'
import type { HttpRelay } from './http-relay.js'
import type { LocalRequest, LocalResponse } from './local-exchange.js'
import { requestIdsOf, StreamedAnswers } from './streamed-answers.js'

/** Responses up to this size with a known length are read whole and sent as one frame. */
const SMALL_RESPONSE_BYTES = 64 * 1024

/** One relayed request. */
export class RelayCall implements Dispatcher.DispatchHandler {
  private readonly relay: HttpRelay
  private readonly req: LocalRequest
  private readonly res: LocalResponse
  private readonly done: () => void
  private controller: Dispatcher.DispatchController | null = null
  private status = 0
  private headers: Record<string, string | string[]> = {}
  /** Small reply: the body, gathered to leave as one frame. Null once streaming. */
  private small: Uint8Array[] | null = null
  /** Reads the states an agent's answer hands out, or null (`HttpRelay.statesOf`). */
  private states: AnswerStates | null = null
  /** Watches an SSE answer for the answers to the POST's requests, or null. */
  private answers: StreamedAnswers | null = null
  private started = false
  private finished = false
  private aborted = false
  private readonly abort = (reason: Error): void => {
    this.aborted = true
    this.controller?.abort(reason)
  }

  constructor(relay: HttpRelay, req: LocalRequest, res: LocalResponse, done: () => void) {
    this.relay = relay
    this.req = req
    this.res = res
    this.done = done
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller
    if (this.req.onAbort) this.req.onAbort(this.abort)
    else if (this.req.signal.aborted) this.onSignal()
    else this.req.signal.addEventListener('abort', this.onSignal, { once: true })
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    // An interim answer (102 Processing, 103 Early Hints; a 100 is dropped before undici reads
    // it, skip-continue.ts) is not the answer: the final one
    // follows on the same exchange. Its head must not become the response's (the tunnel takes
    // one head only, and the edge refuses an interim status as the answer).
    if (statusCode < 200) return
    this.started = true
    if (statusCode > 599) {
      // llhttp reads any three digits; the tunnel (and HTTP) carries 100–599 only.
      this.abort(new Error(`status ${statusCode}`))
      this.relay.badStatus(this.req, this.res, this.relay.targetFor(this.req.path), statusCode)
      return
    }
    if (
      statusCode === 202 &&
      this.req.method === 'POST' &&
      this.relay.acceptedWithoutAnswer(this.req, this.res, this.relay.targetFor(this.req.path))
    ) {
      this.abort(new Error('a request accepted without an answer'))
      return
    }
    // Set as own fields: assigned, a repeated `__proto__` field became the object's prototype,
    // whose items then went out as fields named 0, 1…; a single one was dropped.
    const out: Record<string, string | string[]> = {}
    // The local connection's own headers stay out of the RESPONSE frame, as a proxy drops them.
    // A repeated header (set-cookie) stays a list: each value travels as its own field.
    for (const name in headers) {
      const value = headers[name]
      if (value === undefined || HOP_BY_HOP_HEADERS.has(name)) continue
      setOwnField(out, name, value)
    }
    this.status = statusCode
    this.headers = out
    this.relay.answered(this.req, statusCode, headers['mcp-session-id'])
    this.states = this.relay.statesOf(this.req, statusCode, headers['content-type'])
    this.answers = this.watch(statusCode, headers['content-type'])
    const length = Number(headers['content-length'] ?? NaN)
    if (Number.isFinite(length) && length <= SMALL_RESPONSE_BYTES) {
      this.small = []
      return
    }
    // A watched stream may end with events of the relay's own: its length is not the server's.
    if (this.answers) delete out['content-length']
    this.res.writeHead(statusCode, out)
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    // Bound to its agent before the agent can read it.
    this.states?.push(chunk)
    this.answers?.push(chunk)
    if (this.small) {
      this.small.push(chunk)
      return
    }
    if (this.res.closed) return
    if (!this.res.write(chunk)) {
      controller.pause()
      this.res.onDrain(() => controller.resume())
    }
  }

  onResponseEnd(): void {
    this.states?.end()
    if (this.small) {
      const body = this.small.length === 1 ? this.small[0]! : Buffer.concat(this.small)
      let status = this.status
      if (isSessionGone(status, this.req, body)) {
        status = 404
        this.relay.sessionGone(this.req, this.relay.targetFor(this.req.path))
      }
      const closing = this.closing(null)
      this.writeSmall(status, body, closing)
      if (closing) this.res.write(closing)
    } else {
      const closing = this.closing(null)
      if (closing) this.res.write(closing)
    }
    this.res.end()
    this.finish()
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    if (!this.aborted) {
      const target = this.relay.targetFor(this.req.path)
      const closing = this.started ? this.closing(err) : null
      if (!this.started) this.relay.unreachable(this.req, this.res, target, err)
      else if (closing === null) this.relay.failedMidway(this.res, target, err)
      else {
        // The agent would wait for the answers the broken stream never carried: they end it.
        if (this.small) this.writeSmall(this.status, Buffer.concat(this.small), closing)
        this.res.write(closing)
        this.res.end()
      }
    }
    this.finish()
  }

  /**
   * What watches the answer for the ones it owes: an SSE answer (2xx) to a POST holding
   * requests. Null for any other.
   */
  private watch(status: number, contentType: unknown): StreamedAnswers | null {
    if (this.req.method !== 'POST' || status > 299) return null
    if (responseKind(typeof contentType === 'string' ? contentType : undefined) !== 'sse')
      return null
    const ids = requestIdsOf(this.req.body)
    return ids.length > 0 ? new StreamedAnswers(ids) : null
  }

  /** The events answering what the SSE answer left unanswered, or null: watching stops. */
  private closing(broke: Error | null): Buffer | null {
    const answers = this.answers
    this.answers = null
    if (answers === null) return null
    const { ids, midEvent } = answers.end()
    if (ids.length === 0) return null
    return this.relay.unansweredEvents(this.req, ids, midEvent, broke)
  }

  /** The head and gathered body of a small answer; without its length when more follows. */
  private writeSmall(status: number, body: Uint8Array, closing: Buffer | null): void {
    let headers = this.headers
    if (closing) {
      headers = { ...headers }
      delete headers['content-length']
    }
    this.res.writeHead(status, headers)
    this.res.write(body)
  }

  private readonly onSignal = (): void => this.abort(this.req.signal.reason as Error)

  private finish(): void {
    if (this.finished) return
    this.finished = true
    if (!this.req.onAbort) this.req.signal.removeEventListener('abort', this.onSignal)
    this.done()
  }
}

/**
 * True when the upstream refused a request because it does not know its session, but said so
 * with 400 (as some servers do) instead of the 404 the MCP spec requires. Agents only start a new
 * session on 404, so the relay reports it as one.
 */
function isSessionGone(status: number, req: LocalRequest, body: Uint8Array): boolean {
  if (status !== 400 || req.headers['mcp-session-id'] === undefined) return false
  const text = Buffer.from(body.buffer, body.byteOffset, Math.min(body.length, 2048))
  return /session/i.test(text.toString('utf8'))
}
