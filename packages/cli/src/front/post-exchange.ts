/**
 * The response to one POST that carried JSON-RPC requests. It starts undecided: if the answer is
 * the first thing to deliver it goes out as plain `application/json`; if a related message comes
 * first (progress, a sampling request raised by the call), or nothing comes for a keep-alive period,
 * the response turns into an SSE stream that carries those messages and then the answer, and ends
 * there.
 */
import type { LocalResponse } from '../relay/local-exchange.js'
import {
  errorResponse,
  idKey,
  JSONRPC_CODE,
  type JsonRpcId,
  type JsonRpcMessage,
  type JsonRpcResponse,
} from '@burrow/protocol'
import { SseWriter } from './sse-writer.js'

/** Options of `PostExchange`. */
export interface PostExchangeOptions {
  readonly res: LocalResponse
  /** Ids of the requests in the POST; the exchange ends when all are answered. */
  readonly requestIds: readonly JsonRpcId[]
  /** The POST was a JSON array: a JSON reply must be an array too. */
  readonly batch: boolean
  /** Headers added to the response, e.g. `mcp-session-id`. */
  readonly headers: Readonly<Record<string, string>>
  readonly keepAliveMs: number
  /** The next SSE event id of the session. */
  readonly nextEventId: () => string
  /** HTTP status of a plain JSON reply; default 200 (a 2026-07-28 unknown method answers 404). */
  readonly statusOf?: (answers: readonly JsonRpcResponse[]) => number
}

/** One POST waiting for its answers. */
export class PostExchange {
  readonly #opts: PostExchangeOptions
  readonly #pending: Map<string, JsonRpcId>
  #answers: JsonRpcResponse[] = []
  #sse: SseWriter | undefined
  #finished = false
  #repliedJson = false
  #silence: NodeJS.Timeout | undefined
  #resolve: () => void = () => {}
  /** Settles when the response is complete or the agent hung up. */
  readonly done: Promise<void>

  constructor(options: PostExchangeOptions) {
    this.#opts = options
    this.#pending = new Map(options.requestIds.map((id) => [idKey(id), id]))
    this.done = new Promise((resolve) => (this.#resolve = resolve))
    if (options.keepAliveMs > 0) {
      // A long call with nothing to say would leave the POST without a byte for minutes, and
      // proxies on the way (the edge included) drop idle responses: after one keep-alive period
      // of silence the response becomes an SSE stream, which can carry keep-alive comments.
      this.#silence = setTimeout(() => this.#switchToSse()?.keepAlive(), options.keepAliveMs)
      this.#silence.unref()
    }
  }

  /** True once the response is complete or abandoned. */
  get finished(): boolean {
    return this.#finished
  }

  /** Ids still waiting for an answer. */
  get pendingIds(): JsonRpcId[] {
    return [...this.#pending.values()]
  }

  /** Deliver the answer to one of this POST's requests. */
  answer(response: JsonRpcResponse): void {
    if (this.#finished || response.id === null || !this.#pending.delete(idKey(response.id))) return
    if (this.#sse) {
      this.#sse.send(JSON.stringify(response), this.#opts.nextEventId())
      if (this.#pending.size === 0) this.#finish()
      return
    }
    this.#answers.push(response)
    if (this.#pending.size === 0) this.#replyJson()
  }

  /** Deliver a message related to one of the requests; switches the response to SSE. */
  relay(message: JsonRpcMessage): void {
    if (this.#finished) return
    if (!this.#sse) this.#switchToSse()
    this.#sse?.send(JSON.stringify(message), this.#opts.nextEventId())
  }

  /** Answer every request still pending with an error (the session is going away). */
  fail(reason: string): void {
    for (const id of this.pendingIds) {
      this.answer(errorResponse(id, JSONRPC_CODE.serverError, reason))
    }
  }

  /** The agent hung up: stop writing. */
  abandon(): void {
    this.#finish()
  }

  #switchToSse(): SseWriter | undefined {
    if (this.#finished || this.#sse) return undefined
    clearTimeout(this.#silence)
    const sse = new SseWriter(this.#opts.res, { keepAliveMs: this.#opts.keepAliveMs })
    sse.open(this.#opts.headers)
    this.#sse = sse
    // Answers that arrived first within a batch still go out, now as events.
    for (const answer of this.#answers) sse.send(JSON.stringify(answer), this.#opts.nextEventId())
    this.#answers = []
    return sse
  }

  #replyJson(): void {
    const body = this.#opts.batch ? this.#answers : this.#answers[0]
    const bytes = new TextEncoder().encode(JSON.stringify(body))
    const { res } = this.#opts
    res.writeHead(this.#opts.statusOf?.(this.#answers) ?? 200, {
      ...this.#opts.headers,
      'content-type': 'application/json',
      'content-length': String(bytes.length),
    })
    res.write(bytes)
    this.#repliedJson = true
    this.#finish()
  }

  #finish(): void {
    if (this.#finished) return
    this.#finished = true
    clearTimeout(this.#silence)
    if (this.#sse) this.#sse.end()
    else if (this.#repliedJson) this.#opts.res.end()
    // Otherwise the agent hung up before any head was written: there is nothing to end.
    this.#resolve()
  }
}
