/**
 * The standalone GET stream of one session at an HTTP upstream: what the server sends on its own
 * (list changes, logs, resource updates). Opened once the session is initialized, and reopened
 * when it ends, while the session lives: after the server's `retry` (at least `reopenMs`, at most
 * `maxDelayMs`), and, once an event carried an id, with `Last-Event-ID` so that the server
 * replays what it sent meanwhile (MCP resumability; a server that polls closes it on purpose).
 * A server that refuses to resume from that id is asked once for a fresh stream. `405` (no GET
 * stream offered) and other refusals end it; a forgotten session (`404`, or `400` naming it)
 * loses the connection.
 */
import type { Dispatcher } from 'undici'
import { isStream, quotedBody, sessionGone, type SseCursor } from './http-response.js'

type Response = Dispatcher.ResponseData

/** What the stream needs of its channel. */
export interface StandaloneGetIo {
  /** `GET` under the session with `headers`. */
  readonly get: (headers: Record<string, string>, signal: AbortSignal) => Promise<Response>
  /** Read the stream's events (passing its ids and `retry` to `cursor`) until it ends. */
  readonly read: (response: Response, cursor: SseCursor) => Promise<unknown>
  /** The server forgot the session: the connection is lost. */
  readonly lose: (status: number) => void
  /** The server could not be reached. */
  readonly unreachable: (err: unknown) => void
  readonly debug: (line: string) => void
}

/** One session's GET stream; `stop` it when the session ends. */
export class StandaloneGet {
  readonly #io: StandaloneGetIo
  readonly #reopenMs: number
  readonly #maxDelayMs: number
  readonly #cursor: SseCursor = { lastEventId: null, retryMs: null }
  readonly #abort = new AbortController()
  #open = false
  #timer: NodeJS.Timeout | undefined

  constructor(io: StandaloneGetIo, reopenMs: number, maxDelayMs: number) {
    this.#io = io
    this.#reopenMs = reopenMs
    this.#maxDelayMs = maxDelayMs
  }

  /** Open it, unless open or stopped. */
  start(): void {
    if (this.#abort.signal.aborted || this.#open) return
    this.#open = true
    void this.#serve().finally(() => {
      this.#open = false
    })
  }

  /** Close it for good. */
  stop(): void {
    clearTimeout(this.#timer)
    this.#abort.abort()
  }

  async #serve(): Promise<void> {
    const signal = this.#abort.signal
    const from = this.#cursor.lastEventId
    const headers: Record<string, string> = { accept: 'text/event-stream' }
    if (from !== null) headers['last-event-id'] = from
    let response: Response
    try {
      response = await this.#io.get(headers, signal)
    } catch (err) {
      if (!signal.aborted) this.#io.unreachable(err)
      return
    }
    const status = response.statusCode
    if (!isStream(response)) {
      const text = await quotedBody(response)
      if (signal.aborted || status === 405) return
      if (sessionGone(status, text)) return this.#io.lose(status)
      this.#io.debug(`GET stream refused (HTTP ${status})`)
      if (from === null) return
      // Resuming from that id was refused (an id it no longer keeps): one fresh stream.
      this.#cursor.lastEventId = null
    } else await this.#io.read(response, this.#cursor)
    if (signal.aborted) return
    // The stream ended: the server may have gone away. Reopening tells (refused, or 404).
    const delay = Math.min(Math.max(this.#cursor.retryMs ?? 0, this.#reopenMs), this.#maxDelayMs)
    this.#timer = setTimeout(() => this.start(), delay)
  }
}
