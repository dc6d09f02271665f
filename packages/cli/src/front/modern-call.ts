/**
 * One request of a 2026-07-28 agent served by a 2025 backend, from the first POST to the final
 * answer, across as many `input_required` rounds as the server's questions take. The backend sees
 * one ordinary call on the call's seat; the agent sees a POST per round. While the call runs, what
 * the backend sends is translated: the answer (under the id of the agent's latest POST), progress
 * (under that POST's token; what comes between rounds goes out with the next), log messages the request asked for, and server→client requests,
 * which end the current POST with `input_required` and are answered from the retry's
 * `inputResponses` (see `input-bridge.ts`). Hanging up on a POST cancels the call; a parked call
 * nobody comes back for is cancelled after `parkMs`.
 */
import {
  errorResponse,
  isRecord,
  isRequest,
  isResponse,
  JSONRPC_CODE,
  type JsonRpcId,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type RequestMeta,
} from '@burrow/protocol'
import type { Logger } from '../log/logger.js'
import type { LocalResponse } from '../relay/local-exchange.js'
import { bridgedCapability, INPUT_REQUIRED_METHODS, type InputBridge } from './input-bridge.js'
import { logLevelRank } from './log-levels.js'
import type { ModernSeat } from './modern-seat.js'
import { legacyRequest, modernAnswer } from './modern-translation.js'
import { PostExchange } from './post-exchange.js'
import { progressTokenOf } from './progress-token.js'

/** Options of `ModernCall`. */
export interface ModernCallOptions {
  readonly seat: ModernSeat
  /** The agent's first request, as it arrived. */
  readonly request: JsonRpcRequest
  readonly meta: RequestMeta
  /** The agent the edge admitted the request as (`Burrow-Agent`), undefined on public tunnels. */
  readonly agent?: string
  readonly bridge: InputBridge<ModernCall>
  readonly keepAliveMs: number
  /** How long a call waits for the agent's retry after `input_required`. */
  readonly parkMs: number
  readonly logger: Logger
  /** Told once when the call is over. */
  readonly onDone: (call: ModernCall) => void
}

interface Attachment {
  readonly exchange: PostExchange
  readonly agentId: JsonRpcId
  readonly progressToken: JsonRpcId | undefined
  readonly release: () => void
}

interface PendingAsk {
  readonly askId: JsonRpcId
  readonly method: string
  readonly params: Readonly<Record<string, unknown>> | undefined
}

/** How long a round waits for more questions after the first. */
const ROUND_GATHER_MS = 25
/** Progress notifications kept for the next round while the agent answers a question. */
const MAX_HELD_PROGRESS = 100

/** One logical 2026-07-28 request. */
export class ModernCall {
  readonly method: string
  readonly #opts: ModernCallOptions
  readonly #backendId: JsonRpcId
  readonly #target: unknown
  readonly #controller = new AbortController()
  readonly #asks = new Map<string, PendingAsk>()
  #attached: Attachment | undefined
  #final: JsonRpcResponse | undefined
  #askSeq = 0
  #eventSeq = 0
  #roundScheduled = false
  #parkTimer: NodeJS.Timeout | undefined
  #done = false
  /** Progress the backend reported while no POST was attached (between rounds), bounded. */
  readonly #heldProgress: Readonly<Record<string, unknown>>[] = []

  constructor(options: ModernCallOptions) {
    this.#opts = options
    this.method = options.request.method
    this.#backendId = options.request.id
    this.#target = targetOf(options.request)
    options.seat.onMessage = (message, relatedTo) => this.#fromBackend(message, relatedTo)
    options.seat.onEnd = (reason) => this.#lost(reason)
  }

  /** Send the request to the backend and serve the first POST; resolves when that POST is done. */
  start(res: LocalResponse, signal: AbortSignal): Promise<void> {
    const done = this.#attach(res, this.#opts.request, signal)
    if (!this.#done) {
      this.#opts.seat.session.request(legacyRequest(this.#opts.request), this.#controller.signal)
    }
    return done
  }

  /** The agent the call was made by (only it may resume the call). */
  get agent(): string | undefined {
    return this.#opts.agent
  }

  /** True when `request` (a retry) asks for the same thing as the call's first request. */
  matches(request: JsonRpcRequest): boolean {
    return request.method === this.method && targetOf(request) === this.#target
  }

  /**
   * Serve a retry: hand its `inputResponses` to the questions they answer, then wait for the
   * answer or the next round on its POST.
   */
  resume(request: JsonRpcRequest, res: LocalResponse, signal: AbortSignal): Promise<void> {
    clearTimeout(this.#parkTimer)
    const responses = request.params?.inputResponses
    if (responses !== undefined && !isRecord(responses)) {
      this.cancel('the retry carried inputResponses that are not an object')
      const error = errorResponse(
        request.id,
        JSONRPC_CODE.invalidParams,
        'Invalid params: inputResponses must be an object keyed by the inputRequests keys',
      )
      return this.#replyOnce(res, request, error)
    }
    for (const [key, ask] of [...this.#asks]) {
      const answer = responses?.[key]
      if (!isRecord(answer)) continue
      this.#asks.delete(key)
      const { resultType: _type, ...result } = answer
      void _type
      this.#opts.seat.session.respond({ jsonrpc: '2.0', id: ask.askId, result })
    }
    const done = this.#attach(res, request, signal)
    // Progress made between the rounds goes out first, under the retry's token.
    for (const params of this.#heldProgress.splice(0)) this.#progress(params)
    if (this.#final) this.#deliverFinal(this.#final)
    else if (this.#asks.size > 0) this.#requireInput()
    return done
  }

  /** Stop: the backend cancels the call, and an attached POST gets `reason` as an error. */
  cancel(reason: string): void {
    if (this.#done) return
    const attached = this.#attached
    if (attached) this.#answer(errorResponse(attached.agentId, JSONRPC_CODE.serverError, reason))
    this.#controller.abort(reason)
    this.#finish()
  }

  #attach(res: LocalResponse, request: JsonRpcRequest, signal: AbortSignal): Promise<void> {
    const exchange = new PostExchange({
      res,
      requestIds: [request.id],
      batch: false,
      headers: {},
      keepAliveMs: this.#opts.keepAliveMs,
      nextEventId: () => `m${++this.#eventSeq}`,
      statusOf: modernStatus,
    })
    const onAbort = (): void => {
      exchange.abandon()
      if (this.#attached?.exchange === exchange) {
        this.#attached = undefined
        // Closing the response stream cancels the request (2026-07-28 cancellation).
        this.cancel('the client closed the request')
      }
    }
    signal.addEventListener('abort', onAbort, { once: true })
    this.#attached = {
      exchange,
      agentId: request.id,
      progressToken: progressTokenOf(request),
      release: () => signal.removeEventListener('abort', onAbort),
    }
    if (signal.aborted) onAbort()
    return exchange.done
  }

  #fromBackend(message: JsonRpcMessage, relatedTo?: JsonRpcId): void {
    if (isResponse(message)) {
      if (message.id === this.#backendId) this.#deliverFinal(modernAnswer(this.method, message))
      return
    }
    if (isRequest(message)) return this.#serverRequest(message)
    this.#notification(message, relatedTo)
  }

  #deliverFinal(answer: JsonRpcResponse): void {
    if (!this.#attached) {
      this.#final = answer
      return
    }
    this.#answer(answer)
    this.#finish()
  }

  /** A request of the server to its client: a question for the agent, or refused. */
  #serverRequest(message: JsonRpcRequest): void {
    const capability = bridgedCapability(message.method)
    let refusal: string | undefined
    if (!capability || !INPUT_REQUIRED_METHODS.has(this.method)) {
      refusal = `${message.method} cannot reach a 2026-07-28 client during ${this.method}`
    } else if (this.#opts.seat.capabilities[capability] === undefined) {
      refusal = `the client did not declare the "${capability}" capability ${message.method} needs`
    }
    if (refusal) {
      const error = errorResponse(message.id, JSONRPC_CODE.methodNotFound, refusal)
      return this.#opts.seat.session.respond(error)
    }
    const key = `${capability}-${++this.#askSeq}`
    this.#asks.set(key, { askId: message.id, method: message.method, params: message.params })
    // Questions a server asks together (it writes them one after the other) go out in one round:
    // the round waits a moment for the rest. A question that comes later gets a round of its own.
    if (this.#roundScheduled) return
    this.#roundScheduled = true
    setTimeout(() => {
      this.#roundScheduled = false
      this.#requireInput()
    }, ROUND_GATHER_MS).unref()
  }

  #notification(message: JsonRpcNotification, relatedTo?: JsonRpcId): void {
    const params = message.params ?? {}
    const attached = this.#attached
    switch (message.method) {
      case 'notifications/progress':
        if (relatedTo !== this.#backendId) return
        if (attached === undefined) {
          if (this.#heldProgress.length < MAX_HELD_PROGRESS) this.#heldProgress.push(params)
          return
        }
        this.#progress(params)
        return
      case 'notifications/message':
        if (attached && this.#wantsLog(params.level)) attached.exchange.relay(message)
        return
      case 'notifications/cancelled':
        for (const [key, ask] of this.#asks) {
          if (ask.askId === params.requestId) this.#asks.delete(key)
        }
        return
      default:
      // list_changed and the like travel on subscriptions/listen streams, not on calls.
    }
  }

  /** Relay backend progress `params` on the attached POST, under its own token (if it asked). */
  #progress(params: Readonly<Record<string, unknown>>): void {
    const attached = this.#attached
    if (attached?.progressToken === undefined) return
    attached.exchange.relay({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { ...params, progressToken: attached.progressToken },
    })
  }

  /** End the attached POST with `input_required` for every unanswered question. */
  #requireInput(): void {
    const attached = this.#attached
    if (!attached || this.#asks.size === 0 || this.#done) return
    const inputRequests: Record<string, unknown> = {}
    for (const [key, ask] of this.#asks) {
      inputRequests[key] = { method: ask.method, ...(ask.params ? { params: ask.params } : {}) }
    }
    const requestState = this.#opts.bridge.park(this, this.#opts.agent)
    if (requestState === null) {
      this.cancel('too many requests are waiting for input from their clients; try again later')
      return
    }
    const result = { resultType: 'input_required', inputRequests, requestState }
    this.#answer({ jsonrpc: '2.0', id: attached.agentId, result })
    this.#parkTimer = setTimeout(() => {
      this.#opts.logger.debug(`${this.method}: no retry after input_required; cancelled`)
      this.cancel('the client did not retry after input_required')
    }, this.#opts.parkMs)
    this.#parkTimer.unref()
  }

  #answer(answer: JsonRpcResponse): void {
    const attached = this.#attached
    if (!attached) return
    this.#attached = undefined
    attached.release()
    attached.exchange.answer({ ...answer, id: attached.agentId })
  }

  /** Answer a POST that never became the call's (a refused retry). */
  #replyOnce(res: LocalResponse, request: JsonRpcRequest, answer: JsonRpcResponse): Promise<void> {
    const exchange = new PostExchange({
      res,
      requestIds: [request.id],
      batch: false,
      headers: {},
      keepAliveMs: 0,
      nextEventId: () => `m${++this.#eventSeq}`,
      statusOf: modernStatus,
    })
    exchange.answer(answer)
    return exchange.done
  }

  #lost(reason: string): void {
    this.#deliverFinal(errorResponse(this.#backendId, JSONRPC_CODE.serverError, reason))
  }

  #wantsLog(level: unknown): boolean {
    const wanted = this.#opts.meta.logLevel
    if (wanted === null) return false
    return logLevelRank(level) >= Math.max(0, logLevelRank(wanted))
  }

  #finish(): void {
    if (this.#done) return
    this.#done = true
    clearTimeout(this.#parkTimer)
    this.#opts.bridge.forget(this)
    this.#opts.seat.close()
    this.#opts.onDone(this)
  }
}

/** The HTTP status of a 2026-07-28 JSON answer: 404 for an unknown method, else 200. */
export function modernStatus(answers: readonly JsonRpcResponse[]): number {
  const first = answers[0]
  return first && 'error' in first && first.error.code === JSONRPC_CODE.methodNotFound ? 404 : 200
}

/** What a request names (tool or prompt name, resource URI), for matching retries. */
function targetOf(request: JsonRpcRequest): unknown {
  return request.params?.name ?? request.params?.uri
}
