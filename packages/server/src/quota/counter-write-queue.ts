/**
 * The writes of `MemoryUsageCounters`: counts are applied to the counters in memory at once (that
 * is what limits are checked against) and reach `usage_counters` here, in batches. A count waits
 * at most `flushMs` (default 200 ms): a busy node pays one commit per batch, whatever its
 * traffic, and a quiet one a commit per pause rather than per call. Nobody waits on those
 * writes, so a crash of the process forgets at most the last `flushMs` of counts (never counted
 * twice, never billed). An operator's `set` is written at once and its caller waits for it.
 *
 * Each write stores a counter's whole value (what was stored plus what came since), not an
 * increment: the node is the only writer of its counters, and a write whose outcome is unknown
 * (the database committed, then the connection dropped) can be written again without counting
 * anything twice.
 *
 * A write that fails is tried again: its increments go back into the next batch, so the counts
 * stay in force in memory and reach the database once it takes them; a `set` in it is undone
 * (its caller is told) rather than retried behind the operator's back, and the increments it had
 * replaced count again.
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

/** How long closing waits for a write in flight before it gives up on it, by default (ms). */
export const DRAIN_DEADLINE_MS = 10_000

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

/** Options of `new CounterWriteQueue`. */
export interface CounterWriteQueueOptions {
  /** How long a count may wait to be written (ms). Default `FLUSH_MS`. */
  readonly flushMs?: number
  /** How long `drain` waits for a write in flight (ms). Default `DRAIN_DEADLINE_MS`. */
  readonly drainDeadlineMs?: number
  readonly events?: CounterWriteEvents
}

/** A count `drain` could not write. */
export interface UnwrittenCount {
  readonly tunnelId: string
  readonly metric: UsageMetric
  readonly period: Period
  /** What memory holds and the database does not. */
  readonly value: number
  readonly stored: number
}

/** The table's part the queue uses: one write of whole values. */
type CounterTable = Pick<UsageCounterTable, 'write'>

/** Writes counter changes to the database in order, one batch at a time. */
export class CounterWriteQueue {
  readonly #table: CounterTable
  readonly #clock: () => Date
  readonly #flushMs: number
  readonly #drainDeadlineMs: number
  readonly #events: CounterWriteEvents
  /** The batch being written, and the one collecting changes meanwhile. */
  #writing: Batch | undefined
  #collecting: Batch | undefined
  /** How the collecting batch will be written: right after this turn, or after a delay. */
  #scheduled: 'now' | 'later' | null = null
  #timer: NodeJS.Timeout | undefined
  #immediate: NodeJS.Immediate | undefined
  /** The last write failed: the next success is a recovery. */
  #failing = false
  /** Drained: nothing is scheduled any more. */
  #stopped = false

  constructor(table: CounterTable, clock: () => Date, options: CounterWriteQueueOptions = {}) {
    this.#table = table
    this.#clock = clock
    this.#flushMs = options.flushMs ?? FLUSH_MS
    this.#drainDeadlineMs = options.drainDeadlineMs ?? DRAIN_DEADLINE_MS
    this.#events = options.events ?? {}
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
   * Closing: write every queued change now and stop (nothing is scheduled afterwards). A batch
   * that fails is tried once more; a write in flight is waited for at most the drain deadline.
   * Returns what could not be written.
   */
  async drain(): Promise<UnwrittenCount[]> {
    this.#stopped = true
    this.#unschedule()
    const deadline = performance.now() + this.#drainDeadlineMs
    for (let attempt = 0; attempt < 2; attempt++) {
      while (this.#writing !== undefined) {
        const left = deadline - performance.now()
        if (left <= 0 || !(await settlesWithin(this.#writing.done, left))) return this.#unwritten()
      }
      if (this.#collecting === undefined) return []
      await this.#flush()
    }
    return this.#unwritten()
  }

  /** The counts memory holds and the database does not (after a failed drain). */
  #unwritten(): UnwrittenCount[] {
    const counters = new Set<LiveCounter>()
    for (const batch of [this.#writing, this.#collecting]) {
      for (const counter of batch?.changes.keys() ?? []) counters.add(counter)
    }
    return [...counters]
      .filter((c) => c.value !== c.durable)
      .map((c) => ({
        tunnelId: c.tunnelId,
        metric: c.metric,
        period: c.period,
        value: c.value,
        stored: c.durable,
      }))
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
    if (this.#stopped) return
    if (this.#scheduled === 'now' || (this.#scheduled === 'later' && !urgent)) return
    this.#unschedule()
    this.#scheduled = urgent ? 'now' : 'later'
    const flush = () => {
      this.#scheduled = null
      this.#timer = undefined
      this.#immediate = undefined
      void this.#flush()
    }
    if (urgent) this.#immediate = setImmediate(flush)
    else this.#timer = setTimeout(flush, this.#flushMs)
  }

  /** Forget a scheduled flush. */
  #unschedule(): void {
    clearTimeout(this.#timer)
    clearImmediate(this.#immediate)
    this.#timer = undefined
    this.#immediate = undefined
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
      // Whole values: the stored one plus what came since (see the header).
      const writes = [...batch.changes].map(([counter, { set, delta }]) => ({
        period: counter.period,
        tunnelId: counter.tunnelId,
        metric: counter.metric,
        set: (set ?? counter.durable) + delta,
        delta: 0,
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
   * written. A counter replaced by a set queued meanwhile keeps the failed increments with that
   * set, to count again if it fails too.
   */
  #requeue(failed: Batch): void {
    for (const [counter, change] of failed.changes) {
      const later = this.#collecting?.changes.get(counter)
      const kept = change.replaced + change.delta
      if (later?.set !== undefined) {
        later.replaced += kept
        continue
      }
      if (later === undefined && kept === 0) {
        counter.value = counter.durable // an undone set, with nothing to write again
        continue
      }
      const queued = this.#change(counter, false)
      queued.delta = kept + (later?.delta ?? 0)
      counter.value = counter.durable + queued.delta
    }
    const sets = [...(this.#collecting?.changes.values() ?? [])].some((c) => c.set !== undefined)
    if (this.#collecting !== undefined) this.#schedule(sets)
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

/** Whether `promise` settles within `ms`. */
async function settlesWithin(promise: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)))
  try {
    return await Promise.race([
      promise.then(
        () => true,
        () => true,
      ),
      late,
    ])
  } finally {
    clearTimeout(timer)
  }
}
