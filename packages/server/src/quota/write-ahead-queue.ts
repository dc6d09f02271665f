/**
 * The write-ahead queue of `MemoryUsageCounters`: changes already applied to in-memory counters
 * wait here until they are committed to `usage_counters`, and their callers wait with them.
 * Group commit: changes of one event-loop turn share a transaction, and while one batch is
 * being written the next one collects, so a busy node pays one commit per batch, not per
 * request. A batch that fails is undone in memory, so nothing is counted that the database does
 * not hold.
 *
 * Changes nobody waits for before answering (a response's bytes, counted after it was sent) are
 * not urgent: they join the next batch that is, or are written a moment later, so a quiet
 * tunnel pays one commit per request (its admission), not two.
 */

import type { Period } from './period.js'
import type { UsageCounterTable } from './usage-counter-table.js'
import type { UsageMetric } from './usage-counters.js'

/** One counter in memory. `value` is what limits are checked against; `durable` what is stored. */
export interface LiveCounter {
  readonly period: Period
  readonly tunnelId: string
  readonly metric: UsageMetric
  durable: number
  value: number
  /** A row exists in the database. */
  stored: boolean
}

/** A change to one counter: replace it with `set` when given, then add `delta`. */
export interface CounterChange {
  set: number | undefined
  delta: number
}

/** How long a batch of only non-urgent changes waits for an urgent one, by default. */
export const LAZY_FLUSH_MS = 200

/** Changes written in one transaction; `done` settles when it commits or fails. */
interface Batch {
  readonly changes: Map<LiveCounter, CounterChange>
  readonly done: Promise<void>
  readonly settle: (error?: Error) => void
}

/** Writes counter changes to the database in order, one batch at a time. */
export class WriteAheadQueue {
  readonly #table: UsageCounterTable
  readonly #clock: () => Date
  readonly #lazyFlushMs: number
  /** The batch being written, and the one collecting changes meanwhile. */
  #writing: Batch | undefined
  #collecting: Batch | undefined
  /** How the collecting batch will be written: right after this turn, or after a delay. */
  #scheduled: 'now' | 'later' | null = null
  #lazyTimer: NodeJS.Timeout | undefined

  constructor(table: UsageCounterTable, clock: () => Date, lazyFlushMs = LAZY_FLUSH_MS) {
    this.#table = table
    this.#clock = clock
    this.#lazyFlushMs = lazyFlushMs
  }

  /**
   * Queue `change`, which the caller has already applied to `counter.value`. Resolves once it is
   * committed; rejects when the write failed, after `counter.value` was undone. An urgent change
   * is written right after this event-loop turn (with every change of the turn); another waits
   * for the next urgent one, or at most `lazyFlushMs` (default `LAZY_FLUSH_MS`).
   */
  queue(counter: LiveCounter, change: CounterChange, urgent = true): Promise<void> {
    let batch = this.#collecting
    if (batch === undefined) {
      batch = newBatch()
      this.#collecting = batch
    }
    if (this.#writing === undefined) this.#schedule(urgent)
    const queued = batch.changes.get(counter)
    if (queued === undefined) batch.changes.set(counter, { ...change })
    else if (change.set !== undefined) Object.assign(queued, change)
    else queued.delta += change.delta
    return batch.done
  }

  /** Periods with changes not yet committed: their counters must stay in memory. */
  busyPeriods(): Set<Period> {
    const busy = new Set<Period>()
    for (const batch of [this.#writing, this.#collecting]) {
      for (const counter of batch?.changes.keys() ?? []) busy.add(counter.period)
    }
    return busy
  }

  /** Wait until every queued change is written (or has failed). */
  async drain(): Promise<void> {
    if (this.#collecting !== undefined && this.#writing === undefined) this.#schedule(true)
    for (let batch = this.#writing ?? this.#collecting; batch;) {
      await batch.done.catch(() => {})
      batch = this.#writing ?? this.#collecting
    }
  }

  /** Make sure the collecting batch gets written: soon (after this turn) or later. */
  #schedule(urgent: boolean): void {
    if (this.#scheduled === 'now' || (this.#scheduled === 'later' && !urgent)) return
    clearTimeout(this.#lazyTimer)
    this.#scheduled = urgent ? 'now' : 'later'
    const flush = () => {
      this.#scheduled = null
      this.#lazyTimer = undefined
      void this.#flush()
    }
    // Concurrent calls of this turn share the first commit. It runs in the next turn, after this
    // turn's socket writes (which leave at its end): a request forwarded while its count is
    // written reaches the tunnel without waiting for the disk.
    if (urgent) setImmediate(() => setImmediate(flush))
    else this.#lazyTimer = setTimeout(flush, this.#lazyFlushMs)
  }

  /**
   * Write batches one at a time until none is collecting. Never rejects. A batch that collected
   * while another was written goes next, urgent or not.
   */
  async #flush(): Promise<void> {
    if (this.#writing !== undefined) return
    for (let batch = this.#collecting; batch; batch = this.#collecting) {
      this.#collecting = undefined
      this.#writing = batch
      const writes = [...batch.changes].map(([{ period, tunnelId, metric }, { set, delta }]) => ({
        period,
        tunnelId,
        metric,
        set,
        delta,
      }))
      try {
        await this.#table.write(writes, this.#clock())
        for (const [counter, change] of batch.changes) {
          counter.durable = (change.set ?? counter.durable) + change.delta
          counter.stored = true
        }
        batch.settle()
      } catch (error) {
        this.#undo(batch)
        batch.settle(new Error('usage counters: writing to the database failed', { cause: error }))
      } finally {
        this.#writing = undefined
      }
    }
  }

  /** After a failed write: each counter is again what the database holds plus later changes. */
  #undo(failed: Batch): void {
    for (const counter of failed.changes.keys()) {
      const later = this.#collecting?.changes.get(counter)
      counter.value =
        later === undefined ? counter.durable : (later.set ?? counter.durable) + later.delta
    }
  }
}

function newBatch(): Batch {
  let settle: (error?: Error) => void = () => {}
  const done = new Promise<void>((resolve, reject) => {
    settle = (error) => (error === undefined ? resolve() : reject(error))
  })
  // Every batch has a waiting caller; this only keeps a failed one from counting as unhandled.
  done.catch(() => {})
  return { changes: new Map(), done, settle }
}
