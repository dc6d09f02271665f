/**
 * One request/response exchange as the inspector records it, from the moment the request enters
 * the local handler until its response ends, fails or is abandoned by the agent. It turns into
 * the two views the inspector serves: a summary for the live list and the full detail.
 */
import type { LocalRequest, ResponseHeaders } from '../relay/local-exchange.js'
import { captureBody, type CapturedBody } from './captured-body.js'
import { headerBytes, textBytes } from './held-bytes.js'
import { summarizeRequest } from './json-rpc-summary.js'
import { ResponseCapture, type CapturedMessage, type ResponseKind } from './response-capture.js'

/** Where an exchange is: waiting for the head, streaming the body, or over. */
export type ExchangeState = 'pending' | 'streaming' | 'complete' | 'failed' | 'aborted'

/** A row of the live list. */
export interface ExchangeSummary {
  /** Increasing number, unique within the process. */
  readonly id: number
  /** Wall-clock start, epoch milliseconds. */
  readonly startedAt: number
  /** HTTP method and path as the agent sent them. */
  readonly method: string
  readonly path: string
  readonly rpcMethod: string | null
  readonly toolName: string | null
  readonly rpcId: string | number | null
  /** `mcp-session-id` of the request, or the one a response (to initialize) assigned. */
  readonly sessionId: string | null
  readonly status: number | null
  readonly state: ExchangeState
  /** Milliseconds until the response head. */
  readonly latencyMs: number | null
  /** Milliseconds until the response ended (null while it runs). */
  readonly durationMs: number | null
  readonly responseBytes: number
  /** JSON-RPC messages in the response (SSE events, or 1 for a JSON body). */
  readonly messageCount: number
  /** True when an answer carried a JSON-RPC error or a tool error. */
  readonly rpcError: boolean
  /** Why the exchange failed or was abandoned. */
  readonly error: string | null
  /** True when the request can be sent again (a complete POST body). */
  readonly replayable: boolean
}

/** Everything recorded about an exchange. */
export interface ExchangeDetail extends ExchangeSummary {
  readonly requestHeaders: Readonly<Record<string, string>>
  readonly requestBody: CapturedBody
  readonly responseHeaders: Readonly<Record<string, string>>
  readonly responseKind: ResponseKind
  /** The body of a JSON or text response; null for SSE (see `messages`) and compressed ones. */
  readonly responseBody: CapturedBody | null
  readonly messages: readonly CapturedMessage[]
  readonly messagesTruncated: boolean
}

/** What replay needs to send a recorded request again. */
export interface RecordedRequest {
  readonly method: string
  readonly path: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: Uint8Array
}

/** Options of `ExchangeRecording`. */
export interface ExchangeRecordingOptions {
  readonly maxBodyBytes?: number
  readonly clock?: () => number
  /** Told after every change (head, message, end). */
  readonly onChange: (recording: ExchangeRecording) => void
  /** Told by how much `heldBytes` grew, each time it does (head, chunk, end). */
  readonly onGrow?: (recording: ExchangeRecording, bytes: number) => void
}

/** The recording of one exchange, written by the tap. */
export class ExchangeRecording {
  readonly id: number
  readonly startedAt: number
  // Not the LocalRequest itself: its full body (up to the edge's bound) must not be kept.
  readonly #request: Omit<RecordedRequest, 'body'>
  readonly #requestBody: CapturedBody
  readonly #summary: ReturnType<typeof summarizeRequest>
  readonly #response: ResponseCapture
  readonly #clock: () => number
  readonly #onChange: (recording: ExchangeRecording) => void
  readonly #onGrow: ExchangeRecordingOptions['onGrow']
  /** `heldBytes` as last reported through `onGrow`. */
  #reported: number
  /** Counted bytes of what the request left: its head, kept body and summary. */
  readonly #requestBytes: number
  #state: ExchangeState = 'pending'
  #durationMs: number | null = null
  #error: string | null = null

  constructor(id: number, request: LocalRequest, options: ExchangeRecordingOptions) {
    this.id = id
    this.#clock = options.clock ?? Date.now
    this.startedAt = this.#clock()
    this.#request = { method: request.method, path: request.path, headers: request.headers }
    this.#requestBody = captureBody(request.body, options.maxBodyBytes)
    this.#summary = summarizeRequest(request.body)
    const { rpcMethod, toolName, rpcId } = this.#summary
    this.#requestBytes =
      textBytes(request.method, request.path, this.#requestBody.text, rpcMethod, toolName) +
      textBytes(typeof rpcId === 'string' ? rpcId : null) +
      headerBytes(request.headers)
    this.#onChange = options.onChange
    this.#onGrow = options.onGrow
    this.#response = new ResponseCapture({
      maxBodyBytes: options.maxBodyBytes,
      startedAt: this.startedAt,
      clock: this.#clock,
      onMessage: () => this.#onChange(this),
    })
    this.#reported = this.heldBytes
  }

  /** True once the exchange completed, failed or was aborted. */
  get finished(): boolean {
    return this.#state !== 'pending' && this.#state !== 'streaming'
  }

  /**
   * Rough memory held, for the recorder's budget: every kept string (request head, body and
   * summary, response headers and body or messages, the error), plus 1 KiB for the rest.
   */
  get heldBytes(): number {
    return this.#requestBytes + this.#response.heldBytes + textBytes(this.#error) + 1024
  }

  /** The handler sent status and headers. */
  head(status: number, headers: ResponseHeaders): void {
    if (this.#response.status !== null || this.finished) return
    this.#response.head(status, headers)
    this.#state = 'streaming'
    this.#reportGrowth()
    this.#onChange(this)
  }

  /** The handler sent a body chunk (SSE messages in it are reported through `onChange`). */
  chunk(bytes: Uint8Array): void {
    if (this.finished) return
    this.#response.chunk(bytes)
    this.#reportGrowth()
  }

  /** The exchange is over. Later calls are ignored. */
  finish(state: 'complete' | 'failed' | 'aborted', error: string | null = null): void {
    if (this.finished) return
    this.#response.end()
    this.#state = state
    this.#error = error
    this.#durationMs = this.#clock() - this.startedAt
    this.#reportGrowth()
    this.#onChange(this)
  }

  /** The row for the live list. */
  summary(): ExchangeSummary {
    const res = this.#response
    return {
      id: this.id,
      startedAt: this.startedAt,
      method: this.#request.method,
      path: this.#request.path,
      rpcMethod: this.#summary.rpcMethod,
      toolName: this.#summary.toolName,
      rpcId: this.#summary.rpcId,
      sessionId: this.#request.headers['mcp-session-id'] ?? res.headers['mcp-session-id'] ?? null,
      status: res.status,
      state: this.#state,
      latencyMs: res.headAfterMs,
      durationMs: this.#durationMs,
      responseBytes: res.bytes,
      messageCount: res.messageCount,
      rpcError: res.rpcError,
      error: this.#error,
      replayable: this.#request.method === 'POST' && !this.#requestBody.truncated,
    }
  }

  /** Everything recorded. */
  detail(): ExchangeDetail {
    const res = this.#response
    return {
      ...this.summary(),
      requestHeaders: this.#request.headers,
      requestBody: this.#requestBody,
      responseHeaders: res.headers,
      responseKind: res.kind,
      responseBody: res.body,
      messages: res.messages,
      messagesTruncated: res.messagesTruncated,
    }
  }

  #reportGrowth(): void {
    const held = this.heldBytes
    if (held === this.#reported) return
    const grown = held - this.#reported
    this.#reported = held
    this.#onGrow?.(this, grown)
  }

  /** The request as it can be sent again, or null when it cannot (not a POST, body cut). */
  request(): RecordedRequest | null {
    if (!this.summary().replayable) return null
    const { method, path, headers } = this.#request
    return { method, path, headers, body: new TextEncoder().encode(this.#requestBody.text) }
  }
}
