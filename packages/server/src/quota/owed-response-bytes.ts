/**
 * Response bytes the usage counters failed to take, for `QuotaGate`: kept by tunnel and month and
 * offered again every `OWED_RETRY_MS` into the month they flowed in, so that a stream that flowed
 * while Redis was away is counted once it is back. Not those whose increment may have run (its
 * reply lost to a dropped connection, or timed out on a stalled Redis, which runs it once it
 * resumes): offered again, they were counted twice. Those are let go and logged: counted less,
 * never twice.
 */
import type { Logger } from '@burrow/protocol'
import { mayHaveRun } from '../store/redis-reply-lost.js'
import { periodOf } from './period.js'

/** How often response bytes the counters refused (Redis away) are offered again. */
export const OWED_RETRY_MS = 5000
/** Most tunnel-months of refused response bytes kept for another try; past it they are lost (logged). */
const MAX_OWED = 10_000

/** Response bytes owed to the counters. */
export class OwedResponseBytes<T extends { readonly id: string }> {
  readonly #log: Logger
  /** Offers `n` bytes of `tunnel`, counted at `at`, to the counters again. */
  readonly #retry: (tunnel: T, n: number, at: Date) => void
  readonly #owed = new Map<string, { readonly tunnel: T; n: number; at: Date }>()
  #retryTimer: NodeJS.Timeout | null = null
  /** Bytes let go since the last report, as their increment may have run; why; its timer. */
  #unknown = 0
  #unknownReason = ''
  #unknownTimer: NodeJS.Timeout | null = null

  constructor(log: Logger, retry: (tunnel: T, n: number, at: Date) => void) {
    this.#log = log
    this.#retry = retry
  }

  /** The counters failed with `error` to take `n` bytes of `tunnel` counted at `at`. */
  owe(tunnel: T, n: number, at: Date, error: Error): void {
    if (mayHaveRun(error)) {
      this.#letGo(n, error)
      return
    }
    const key = `${tunnel.id} ${periodOf(at)}`
    const known = this.#owed.get(key)
    if (known !== undefined) known.n += n
    else if (this.#owed.size < MAX_OWED) this.#owed.set(key, { tunnel, n, at })
    else {
      this.#log.error(
        `quota: ${n} response bytes of ${tunnel.id} not counted: ${error.message} (too many waiting)`,
      )
      return
    }
    if (known === undefined && this.#owed.size === 1) {
      this.#log.warn(`quota: counting response bytes failed (${error.message}); trying again`)
    }
    if (this.#retryTimer === null) {
      this.#retryTimer = setTimeout(() => this.#pay(), OWED_RETRY_MS)
      this.#retryTimer.unref()
    }
  }

  /** Bytes waiting for the counters to work again. */
  get bytes(): number {
    let n = 0
    for (const owed of this.#owed.values()) n += owed.n
    return n
  }

  /** Stop offering bytes again; returns those still owed, forgotten. */
  close(): number {
    if (this.#retryTimer !== null) clearTimeout(this.#retryTimer)
    this.#retryTimer = null
    this.#reportUnknown()
    const lost = this.bytes
    this.#owed.clear()
    return lost
  }

  #pay(): void {
    this.#retryTimer = null
    const owed = [...this.#owed.values()]
    this.#owed.clear()
    for (const { tunnel, n, at } of owed) this.#retry(tunnel, n, at)
  }

  /** Note bytes whose increment may or may not have run; reported at most once a retry period. */
  #letGo(n: number, error: Error): void {
    this.#unknown += n
    this.#unknownReason = error.message
    if (this.#unknownTimer !== null) return
    this.#unknownTimer = setTimeout(() => this.#reportUnknown(), OWED_RETRY_MS)
    this.#unknownTimer.unref()
  }

  #reportUnknown(): void {
    if (this.#unknownTimer !== null) clearTimeout(this.#unknownTimer)
    this.#unknownTimer = null
    if (this.#unknown === 0) return
    this.#log.warn(
      `quota: ${this.#unknown} response bytes may not be counted (${this.#unknownReason}); not offered again, as Redis may have counted them`,
    )
    this.#unknown = 0
  }
}
