/**
 * The write-ahead queue of `MemoryUsageCounters`: changes already applied to in-memory counters
 * wait here until they are committed to `usage_counters`, and their callers wait with them.
 * Group commit: changes of one tick share a transaction, and while one batch is being written
 * the next one collects, so a busy node pays one commit per batch, not per request. A batch
 * that fails is undone in memory, so nothing is counted that the database does not hold.
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
  /** The batch being written, and the one collecting changes meanwhile. */
  #writing: Batch | undefined
  #collecting: Batch | undefined
  #flushScheduled = false

  constructor(table: UsageCounterTable, clock: () => Date) {
    this.#table = table
    this.#clock = clock
  }

  /**
   * Queue `change`, which the caller has already applied to `counter.value`. Resolves once it is
   * committed; rejects when the write failed, after `counter.value` was undone.
   */
  queue(counter: LiveCounter, change: CounterChange): Promise<void> {
    let batch = this.#collecting
    if (batch === undefined) {
      batch = newBatch()
      this.#collecting = batch
      if (this.#writing === undefined && !this.#flushScheduled) {
        this.#flushScheduled = true
        // Concurrent calls of this tick share the first transaction.
        setImmediate(() => {
          this.#flushScheduled = false
          void this.#flush()
        })
      }
    }
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
    for (let batch = this.#writing ?? this.#collecting; batch;) {
      await batch.done.catch(() => {})
      batch = this.#writing ?? this.#collecting
    }
  }

  /** Write batches one at a time until none is collecting. Never rejects. */
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
