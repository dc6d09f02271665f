/**
 * Writes a Server-Sent Events stream onto a `LocalResponse`: message events with ids, keep-alive
 * comments so idle streams survive proxies, and the headers that stop proxies from buffering. The
 * messages come from a stdio child that serves every session at its own pace, so a slow agent
 * cannot be paced by backpressure; its events are buffered up to a bound, past which the stream is
 * closed rather than letting memory grow.
 */
import type { LocalResponse } from '../relay/local-exchange.js'

/** Headers of every SSE response of the front. */
export const SSE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  // nginx and similar proxies buffer responses unless told otherwise; SSE must not be buffered.
  'x-accel-buffering': 'no',
})

/** Options of `SseWriter`. */
export interface SseWriterOptions {
  /** Interval of `: keepalive` comments; 0 disables them. */
  readonly keepAliveMs: number
  /** Bytes held for an agent that does not read before the stream is given up. */
  readonly maxBufferedBytes?: number
  /** Told when the stream was given up because the agent did not read. */
  readonly onOverflow?: () => void
}

const encoder = new TextEncoder()
const DEFAULT_MAX_BUFFERED = 8 * 1024 * 1024

/** One open SSE response. */
export class SseWriter {
  readonly #res: LocalResponse
  readonly #opts: SseWriterOptions
  #queue: Uint8Array[] = []
  #queued = 0
  #blocked = false
  #ended = false
  #timer: NodeJS.Timeout | undefined

  constructor(res: LocalResponse, options: SseWriterOptions) {
    this.#res = res
    this.#opts = options
  }

  /** True once ended here or by the agent hanging up. */
  get closed(): boolean {
    return this.#ended || this.#res.closed
  }

  /** Send status 200 with the SSE headers plus `extra`, and start the keep-alives. */
  open(extra: Readonly<Record<string, string>> = {}): void {
    this.#res.writeHead(200, { ...SSE_HEADERS, ...extra })
    if (this.#opts.keepAliveMs > 0) {
      this.#timer = setInterval(() => {
        if (this.#res.closed) this.end()
        else this.keepAlive()
      }, this.#opts.keepAliveMs)
      // Keep-alives alone must not keep the CLI (or a test run) alive.
      this.#timer.unref()
    }
  }

  /** Send a keep-alive comment now (skipped while blocked: the stream is not idle then). */
  keepAlive(): void {
    if (!this.#blocked) this.#write(': keepalive\n\n')
  }

  /** Send one message event. Returns false when the stream is already closed. */
  send(data: string, id: string): boolean {
    return this.#write(`id: ${id}\nevent: message\ndata: ${data}\n\n`)
  }

  /** End the stream once what is queued has been written (idempotent). */
  end(): void {
    if (this.#ended) return
    this.#ended = true
    clearInterval(this.#timer)
    // The last event is usually the response itself: it must not be dropped for being queued.
    if (!this.#blocked || this.#res.closed) this.#res.end()
  }

  #giveUp(): void {
    this.#queue = []
    this.#queued = 0
    this.#blocked = false
    this.end()
  }

  #write(text: string): boolean {
    if (this.closed) return false
    const chunk = encoder.encode(text)
    if (this.#blocked) {
      this.#queue.push(chunk)
      this.#queued += chunk.length
      if (this.#queued > (this.#opts.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED)) {
        this.#giveUp()
        this.#opts.onOverflow?.()
        return false
      }
      return true
    }
    if (!this.#res.write(chunk)) {
      this.#blocked = true
      this.#res.onDrain(() => this.#flush())
    }
    return true
  }

  #flush(): void {
    this.#blocked = false
    while (this.#queue.length > 0 && !this.#res.closed) {
      const chunk = this.#queue.shift()!
      this.#queued -= chunk.length
      if (!this.#res.write(chunk)) {
        this.#blocked = true
        this.#res.onDrain(() => this.#flush())
        return
      }
    }
    this.#queue = []
    this.#queued = 0
    if (this.#ended) this.#res.end()
  }
}
