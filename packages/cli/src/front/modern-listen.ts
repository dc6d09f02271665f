/**
 * `subscriptions/listen` for 2026-07-28 agents: a long-lived POST whose SSE stream carries the
 * change notifications the agent asked for, each tagged with the listen request's id. It rides a
 * seat of its own, which receives what the backend tells every session (`list_changed`) and, for
 * the resources it subscribes to at the backend on the agent's behalf, `resources/updated`. The
 * agent ends it by closing the stream; the front ends it gracefully (a final result) on shutdown.
 */
import {
  errorResponse,
  isRecord,
  isRequest,
  isResponse,
  JSONRPC_CODE,
  META_KEY,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
} from '@burrow/protocol'
import type { Logger } from '../log/logger.js'
import type { LocalResponse } from '../relay/local-exchange.js'
import type { InitializeAnswer, ModernSeat } from './modern-seat.js'
import { SseWriter } from './sse-writer.js'
import {
  MAX_SUBSCRIBED_URI_CHARS_PER_SESSION,
  MAX_SUBSCRIPTIONS_PER_SESSION,
} from './resource-subscriptions.js'

/** The notification filter of `subscriptions/listen`. */
export interface ListenFilter {
  toolsListChanged?: boolean
  promptsListChanged?: boolean
  resourcesListChanged?: boolean
  resourceSubscriptions?: string[]
}

/** Each list filter field: the notification it stands for and the capability that offers it. */
const LIST_FILTERS = [
  ['toolsListChanged', 'notifications/tools/list_changed', 'tools'],
  ['promptsListChanged', 'notifications/prompts/list_changed', 'prompts'],
  ['resourcesListChanged', 'notifications/resources/list_changed', 'resources'],
] as const

/** How long closing a stream waits for the backend to confirm its unsubscriptions. */
const UNSUBSCRIBE_WAIT_MS = 5_000

/** The part of `asked` that a server with the InitializeResult `init` can deliver. */
export function honoredFilter(asked: unknown, init: InitializeAnswer): ListenFilter {
  const filter = isRecord(asked) ? asked : {}
  const caps = isRecord(init.capabilities) ? init.capabilities : {}
  const honored: ListenFilter = {}
  for (const [field, , capability] of LIST_FILTERS) {
    const cap = caps[capability]
    if (filter[field] === true && isRecord(cap) && cap.listChanged === true) honored[field] = true
  }
  const uris = filter.resourceSubscriptions
  const resources = caps.resources
  if (Array.isArray(uris) && isRecord(resources) && resources.subscribe === true) {
    // What one session may subscribe to: the acknowledgment promises no more than is subscribed.
    const kept = new Set<string>()
    let chars = 0
    for (const uri of uris) {
      if (typeof uri !== 'string' || kept.has(uri)) continue
      if (kept.size >= MAX_SUBSCRIPTIONS_PER_SESSION) break
      if (chars + uri.length > MAX_SUBSCRIBED_URI_CHARS_PER_SESSION) break
      kept.add(uri)
      chars += uri.length
    }
    honored.resourceSubscriptions = [...kept]
  }
  return honored
}

/** One open `subscriptions/listen` stream. */
export class ListenStream {
  readonly #seat: ModernSeat
  readonly #request: JsonRpcRequest
  readonly #filter: ListenFilter
  readonly #log: Logger
  readonly #writer: SseWriter
  readonly #wanted: Set<string>
  readonly #uris: Set<string>
  #eventSeq = 0
  #requestSeq = 0
  #closing = false
  readonly #replies = new Map<string, () => void>()
  #ended: () => void = () => {}

  constructor(
    seat: ModernSeat,
    request: JsonRpcRequest,
    filter: ListenFilter,
    res: LocalResponse,
    keepAliveMs: number,
    logger: Logger,
  ) {
    this.#seat = seat
    this.#request = request
    this.#filter = filter
    this.#log = logger
    this.#writer = new SseWriter(res, { keepAliveMs, onOverflow: () => void this.close() })
    this.#wanted = new Set(LIST_FILTERS.filter(([f]) => filter[f]).map(([, method]) => method))
    this.#uris = new Set(filter.resourceSubscriptions ?? [])
    seat.onMessage = (message) => this.#fromBackend(message)
    seat.onEnd = () => void this.#end()
  }

  /** Acknowledge, subscribe, and stream until the agent hangs up or `close` is called. */
  async serve(signal: AbortSignal): Promise<void> {
    const ended = new Promise<void>((resolve) => (this.#ended = resolve))
    this.#writer.open()
    this.#send({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: this.#filter },
    })
    for (const uri of this.#uris) void this.#ask('resources/subscribe', uri)
    const onAbort = (): void => void this.#end()
    signal.addEventListener('abort', onAbort, { once: true })
    if (signal.aborted) onAbort()
    await ended
    signal.removeEventListener('abort', onAbort)
  }

  /** End the stream gracefully: a final result for the listen request, then the end. */
  async close(): Promise<void> {
    if (!this.#writer.closed) {
      const result = { resultType: 'complete', _meta: this.#tag() }
      this.#writer.send(
        JSON.stringify({ jsonrpc: '2.0', id: this.#request.id, result }),
        this.#id(),
      )
    }
    await this.#end()
  }

  #fromBackend(message: JsonRpcMessage): void {
    if (isResponse(message)) {
      const key = typeof message.id === 'string' ? message.id : ''
      this.#replies.get(key)?.()
      this.#replies.delete(key)
      if ('error' in message) this.#log.debug(`listen: ${message.error.message}`)
      return
    }
    if (isRequest(message)) {
      // A listen stream has no call to carry a question: the server gets an answer, not silence.
      const reason = `${message.method} cannot reach a 2026-07-28 client on subscriptions/listen`
      return this.#seat.session.respond(
        errorResponse(message.id, JSONRPC_CODE.methodNotFound, reason),
      )
    }
    if (this.#wanted.has(message.method)) return this.#send(message)
    const uri = message.params?.uri
    if (message.method === 'notifications/resources/updated' && typeof uri === 'string') {
      if (this.#uris.has(uri)) this.#send(message)
    }
  }

  #send(message: JsonRpcNotification): void {
    const params = { ...message.params, _meta: { ...metaOf(message.params), ...this.#tag() } }
    this.#writer.send(JSON.stringify({ ...message, params }), this.#id())
  }

  /** Send a request for `uri` at the backend; resolves when answered (or at once when gone). */
  #ask(method: string, uri: string): Promise<void> {
    if (this.#seat.closed) return Promise.resolve()
    const id = `listen-${++this.#requestSeq}`
    const answered = new Promise<void>((resolve) => this.#replies.set(id, resolve))
    const message = { jsonrpc: '2.0' as const, id, method, params: { uri } }
    this.#seat.session.request(message, new AbortController().signal)
    return answered
  }

  async #end(): Promise<void> {
    if (this.#closing) return
    this.#closing = true
    this.#writer.end()
    // A 2025 server keeps subscriptions per session; give them back before the seat goes.
    const unsubscribed = [...this.#uris].map((uri) => this.#ask('resources/unsubscribe', uri))
    if (unsubscribed.length > 0) {
      let timer: NodeJS.Timeout | undefined
      const waited = new Promise<void>(
        (resolve) => (timer = setTimeout(resolve, UNSUBSCRIBE_WAIT_MS)),
      )
      await Promise.race([Promise.all(unsubscribed), waited])
      clearTimeout(timer)
    }
    for (const resolve of this.#replies.values()) resolve()
    this.#seat.close()
    this.#ended()
  }

  #tag(): Record<string, unknown> {
    return { [META_KEY.subscriptionId]: this.#request.id }
  }

  #id(): string {
    return `l${++this.#eventSeq}`
  }
}

function metaOf(params: Readonly<Record<string, unknown>> | undefined): Record<string, unknown> {
  return isRecord(params?._meta) ? params._meta : {}
}
