/**
 * The writes of `MemoryUsageCounters`: counts are applied to the counters in memory at once (that
 * is what limits are checked against) and reach `usage_counters` here, in batches. A count waits
 * at most `flushMs` (default 200 ms): a busy node pays one commit per batch, whatever its
 * traffic, and a quiet one a commit per pause rather than per call. Nobody waits on those
 * writes, so a crash of the process forgets at most the last `flushMs` of counts (never counted
 * twice, never billed). An operator's `set` is written at once and its caller waits for it.
 *
 * A write that fails is tried again: its increments go back into the next batch, so the counts
 * stay in force in memory and reach the database once it takes them; a `set` in it is undone
 * (its caller is told) rather than retried behind the operator's back.
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
interface CounterChange {
  set: number | undefined
  delta: number
  /** Increments the set replaced: counted again if the set cannot be written. */
  replaced: number
}

/** How long a count waits to be written, by default (ms). */
export const FLUSH_MS = 200

/** Changes written in one transaction; `done` settles when it commits or fails. */
interface Batch {
  readonly changes: Map<LiveCounter, CounterChange>
  readonly done: Promise<void>
  readonly settle: (error?: Error) => void
}

/** What the queue tells its owner about the database. */
export interface CounterWriteEvents {
  /** A batch could not be written; its increments wait for the next one. */
  readonly failed?: (error: Error) => void
  /** A batch was written after one or more had failed. */
  readonly recovered?: () => void
}

/** Writes counter changes to the database in order, one batch at a time. */
export class CounterWriteQueue {
  readonly #table: UsageCounterTable
  readonly #clock: () => Date
  readonly #flushMs: number
  readonly #events: CounterWriteEvents
  /** The batch being written, and the one collecting changes meanwhile. */
  #writing: Batch | undefined
  #collecting: Batch | undefined
  /** How the collecting batch will be written: right after this turn, or after a delay. */
  #scheduled: 'now' | 'later' | null = null
  #timer: NodeJS.Timeout | undefined
  /** The last write failed: the next success is a recovery. */
  #failing = false

  constructor(
    table: UsageCounterTable,
    clock: () => Date,
    flushMs = FLUSH_MS,
    events: CounterWriteEvents = {},
  ) {
    this.#table = table
    this.#clock = clock
    this.#flushMs = flushMs
    this.#events = events
  }

  /** Queue an increment the caller has already added to `counter.value`; written within `flushMs`. */
  add(counter: LiveCounter, delta: number): void {
    const queued = this.#change(counter, false)
    queued.delta += delta
  }

  /**
   * Queue replacing `counter` with `value` (already its `value`), written after this turn.
   * Resolves once committed; rejects when the write failed, after `counter.value` was undone.
   */
  set(counter: LiveCounter, value: number): Promise<void> {
    const queued = this.#change(counter, true)
    queued.set = value
    queued.replaced += queued.delta
    queued.delta = 0
    return this.#collecting!.done
  }

  /** Periods with changes not yet committed: their counters must stay in memory. */
  busyPeriods(): Set<Period> {
    const busy = new Set<Period>()
    for (const batch of [this.#writing, this.#collecting]) {
      for (const counter of batch?.changes.keys() ?? []) busy.add(counter.period)
    }
    return busy
  }

  /**
   * Write every queued change now and wait for it (closing). A batch that fails is tried once
   * more; what fails again is left unwritten (and was reported).
   */
  async drain(): Promise<void> {
    for (let attempt = 0; attempt < 2; attempt++) {
      while (this.#writing !== undefined) await this.#writing.done.catch(() => {})
      if (this.#collecting === undefined) return
      this.#unschedule()
      await this.#flush()
    }
    this.#unschedule()
  }

  /** The collecting batch's change of `counter`, scheduling its write. */
  #change(counter: LiveCounter, urgent: boolean): CounterChange {
    let batch = this.#collecting
    if (batch === undefined) {
      batch = newBatch()
      this.#collecting = batch
    }
    if (this.#writing === undefined) this.#schedule(urgent)
    let queued = batch.changes.get(counter)
    if (queued === undefined) {
      queued = { set: undefined, delta: 0, replaced: 0 }
      batch.changes.set(counter, queued)
    }
    return queued
  }

  /** Make sure the collecting batch gets written: soon (after this turn) or later. */
  #schedule(urgent: boolean): void {
    if (this.#scheduled === 'now' || (this.#scheduled === 'later' && !urgent)) return
    clearTimeout(this.#timer)
    this.#scheduled = urgent ? 'now' : 'later'
    const flush = () => {
      this.#scheduled = null
      this.#timer = undefined
      void this.#flush()
    }
    if (urgent) setImmediate(flush)
    else this.#timer = setTimeout(flush, this.#flushMs)
  }

  /** Forget a scheduled flush (a pending `setImmediate` finds nothing, or flushes what came since). */
  #unschedule(): void {
    clearTimeout(this.#timer)
    this.#timer = undefined
    this.#scheduled = null
  }

  /**
   * Write batches one at a time until none is collecting, or one fails (what it held then waits
   * for the next flush). Never rejects. A batch that collected while another was written goes
   * next, urgent or not.
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
        if (this.#failing) {
          this.#failing = false
          this.#events.recovered?.()
        }
      } catch (cause) {
        const error = new Error('usage counters: writing to the database failed', { cause })
        this.#requeue(batch)
        batch.settle(error)
        this.#failing = true
        this.#events.failed?.(error)
        return
      } finally {
        this.#writing = undefined
      }
    }
  }

  /**
   * After a failed write: its increments join the collecting batch, to be written with it; a set
   * is undone, so each counter is again what the database holds plus the increments not yet
   * written.
   */
  #requeue(failed: Batch): void {
    for (const [counter, change] of failed.changes) {
      const later = this.#collecting?.changes.get(counter)
      if (later?.set !== undefined) continue // replaced since: the later set stands
      const queued = this.#change(counter, false)
      queued.delta = change.replaced + change.delta + (later?.delta ?? 0)
      counter.value = counter.durable + queued.delta
    }
    if (this.#collecting !== undefined) this.#schedule(false)
  }
}

function newBatch(): Batch {
  let settle: (error?: Error) => void = () => {}
  const done = new Promise<void>((resolve, reject) => {
    settle = (error) => (error === undefined ? resolve() : reject(error))
  })
  // Only a set has a waiting caller; this keeps a failed batch without one from going unhandled.
  done.catch(() => {})
  return { changes: new Map(), done, settle }
}
