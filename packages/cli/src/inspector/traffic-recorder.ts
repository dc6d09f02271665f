/**
 * The inspector's memory of recent traffic: the last N exchanges (500 by default) within a byte
 * budget, oldest dropped first, and a feed of changes for the live view. Bodies are bounded by
 * the recordings themselves, so a busy or bulky tunnel cannot make the CLI grow without limit.
 * The budget is a running total, checked whenever a recording grows (a response that streams
 * for long grows after its exchange started), not only when an exchange starts.
 */
import type { LocalRequest } from '../relay/local-exchange.js'
import { DEFAULT_MAX_BODY_BYTES } from './captured-body.js'
import { ExchangeRecording, type ExchangeSummary } from './exchange-recording.js'

/** A change subscribers hear about. */
export type TrafficEvent =
  { readonly type: 'exchange'; readonly exchange: ExchangeSummary } | { readonly type: 'cleared' }

/** Options of `TrafficRecorder`. */
export interface TrafficRecorderOptions {
  /** Exchanges kept; default 500. */
  readonly limit?: number
  /** Bytes kept of each request and response body; default 256 KiB. */
  readonly maxBodyBytes?: number
  /** Rough bound on everything kept; default 64 MiB. The newest exchange is always kept. */
  readonly maxHeldBytes?: number
  readonly clock?: () => number
}

/** Keeps recent exchanges and tells subscribers about new and updated ones. */
export class TrafficRecorder {
  /** Exchanges kept at most. */
  readonly limit: number
  readonly #maxBodyBytes: number
  readonly #maxHeldBytes: number
  readonly #clock: () => number
  // Insertion order is id order: Map iteration gives oldest first.
  readonly #exchanges = new Map<number, ExchangeRecording>()
  readonly #listeners = new Set<(event: TrafficEvent) => void>()
  #nextId = 1
  /** The sum of the kept recordings' `heldBytes`. */
  #held = 0

  constructor(options: TrafficRecorderOptions = {}) {
    this.limit = options.limit ?? 500
    this.#maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES
    this.#maxHeldBytes = options.maxHeldBytes ?? 64 * 1024 * 1024
    this.#clock = options.clock ?? Date.now
  }

  /** Start recording a request; the tap writes the response into the returned recording. */
  start(request: LocalRequest): ExchangeRecording {
    const recording = new ExchangeRecording(this.#nextId++, request, {
      maxBodyBytes: this.#maxBodyBytes,
      clock: this.#clock,
      onChange: (changed) => {
        if (this.#exchanges.get(changed.id) === changed) this.#emitExchange(changed)
      },
      onGrow: (grown, bytes) => {
        if (this.#exchanges.get(grown.id) !== grown) return
        this.#held += bytes
        this.#evict()
      },
    })
    this.#exchanges.set(recording.id, recording)
    this.#held += recording.heldBytes
    this.#evict()
    this.#emitExchange(recording)
    return recording
  }

  /** Summaries of the kept exchanges, oldest first. */
  list(): ExchangeSummary[] {
    return [...this.#exchanges.values()].map((r) => r.summary())
  }

  /** A kept exchange by id. */
  get(id: number): ExchangeRecording | undefined {
    return this.#exchanges.get(id)
  }

  /** Forget every exchange (those still running are no longer reported). */
  clear(): void {
    this.#exchanges.clear()
    this.#held = 0
    this.#emit({ type: 'cleared' })
  }

  /** Hear about changes until the returned function is called. Listeners must be quick. */
  subscribe(listener: (event: TrafficEvent) => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  #evict(): void {
    while (this.#exchanges.size > this.limit) this.#dropOldest()
    while (this.#held > this.#maxHeldBytes && this.#exchanges.size > 1) this.#dropOldest()
  }

  #dropOldest(): void {
    const oldest = this.#exchanges.values().next().value
    if (!oldest) return
    this.#exchanges.delete(oldest.id)
    // Every growth of a kept recording was added as it happened: this is what it counted for.
    this.#held -= oldest.heldBytes
  }

  #emitExchange(recording: ExchangeRecording): void {
    if (this.#listeners.size > 0) this.#emit({ type: 'exchange', exchange: recording.summary() })
  }

  #emit(event: TrafficEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event)
      } catch {
        // A broken listener must not disturb the traffic it watches.
      }
    }
  }
}
