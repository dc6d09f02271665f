/**
 * Usage counters for a single burrowd node. The check-and-increment runs synchronously in
 * process memory, so it is exact under any concurrency, and an increment is in force as soon as
 * it is decided. It reaches `usage_counters` as an upsert `value = value + n` within a fraction of
 * a second (`CounterWriteQueue`, one statement per batch), and at `close`. A restart loads the
 * current month; a crash forgets at most the counts of that last fraction of a second.
 * One process per database: another writer's changes are not seen until restart.
 */

import type { Kysely } from 'kysely'
import type { Logger } from '@burrow/protocol'
import { checkUsageInput } from './check-usage-input.js'
import { CountingUsageCounters } from './counting-usage-counters.js'
import { demandRefused } from './demand-refused.js'
import { nextResetOf, periodOf, previousPeriodOf } from './period.js'
import type { Period } from './period.js'
import { UsageCounterTable } from './usage-counter-table.js'
import { bySnapshotOrder } from './usage-counters.js'
import type {
  ConsumeAllResult,
  ConsumeResult,
  UsageDemand,
  UsageMetric,
  UsageSnapshotEntry,
} from './usage-counters.js'
import type { UsageCountersDatabase } from '../store/schema.js'
import { crossesWarning } from './usage-warning.js'
import { CounterWriteQueue } from './counter-write-queue.js'
import type { LiveCounter } from './counter-write-queue.js'

/** Options of `MemoryUsageCounters.open`. */
export interface MemoryUsageCountersOptions {
  /** The time used when a call passes no `now`, and for `updated_at` (tests pass a fixed one). */
  readonly clock?: () => Date
  /** How long a count may wait to be written to the database (ms). Default 200. */
  readonly flushMs?: number
  /** Where failed writes are reported (at most once a minute while they fail), and recoveries. */
  readonly log?: Logger
}

/** While writes keep failing, how often that is logged again. */
const FAILURE_LOG_INTERVAL_MS = 60_000

/** A period's counters by `tunnelId + ' ' + metric`. */
type PeriodCounters = Map<string, LiveCounter>

/** Exact usage counters in process memory, written to the database in batches. */
export class MemoryUsageCounters extends CountingUsageCounters {
  readonly #table: UsageCounterTable
  readonly #clock: () => Date
  /** Loaded (or loading) periods. Only the newest two are kept, plus any still being written. */
  readonly #periods = new Map<Period, Promise<PeriodCounters>>()
  /** The periods of `#periods` whose counters are loaded: used at once, without waiting a turn. */
  readonly #ready = new Map<Period, PeriodCounters>()
  #newestPeriod: Period = ''
  readonly #writes: CounterWriteQueue
  readonly #log: Logger | undefined
  #closed = false

  private constructor(db: Kysely<UsageCountersDatabase>, options: MemoryUsageCountersOptions) {
    super()
    this.#table = new UsageCounterTable(db)
    this.#clock = options.clock ?? (() => new Date())
    const log = options.log
    let loggedAt = -Infinity
    this.#log = log
    this.#writes = new CounterWriteQueue(this.#table, this.#clock, {
      ...(options.flushMs === undefined ? {} : { flushMs: options.flushMs }),
      events: {
        failed: (error) => {
          const now = performance.now()
          if (now - loggedAt < FAILURE_LOG_INTERVAL_MS) return
          loggedAt = now
          const cause = error.cause instanceof Error ? `: ${error.cause.message}` : ''
          log?.error(`${error.message}${cause}; the counts stay in force and are written again`)
        },
        recovered: () => {
          loggedAt = -Infinity
          log?.info('usage counters: writing to the database works again')
        },
      },
    })
  }

  /**
   * Counters over `db` (migrated with `003_usage_counters`), with the current month loaded.
   * The database stays open on `close()`: its owner closes it.
   */
  static async open(
    db: Kysely<UsageCountersDatabase>,
    options: MemoryUsageCountersOptions = {},
  ): Promise<MemoryUsageCounters> {
    const counters = new MemoryUsageCounters(db, options)
    await counters.#load(periodOf(counters.#clock()))
    return counters
  }

  async get(tunnelId: string, metric: UsageMetric, now: Date = this.#clock()): Promise<number> {
    checkUsageInput(tunnelId, metric)
    return this.#withPeriod(
      periodOf(now),
      (counters) => counters.get(key(tunnelId, metric))?.value ?? 0,
    )
  }

  async set(
    tunnelId: string,
    metric: UsageMetric,
    value: number,
    now: Date = this.#clock(),
  ): Promise<void> {
    checkUsageInput(tunnelId, metric, { value })
    const period = periodOf(now)
    const { done } = await this.#withPeriod(period, (counters) => {
      const counter = counterOf(counters, period, tunnelId, metric)
      counter.value = value
      return { done: this.#writes.set(counter, value) }
    })
    await done
  }

  async snapshot(now: Date = this.#clock()): Promise<UsageSnapshotEntry[]> {
    const period = periodOf(now)
    const counters = await this.#withPeriod(period, (loaded) => [...loaded.values()])
    return counters
      .filter((c) => c.stored || c.value > 0)
      .map((c) => ({ tunnelId: c.tunnelId, metric: c.metric, period, value: c.value }))
      .sort(bySnapshotOrder)
  }

  async close(): Promise<void> {
    this.#closed = true
    const unwritten = await this.#writes.drain()
    if (unwritten.length === 0) return
    const shown = unwritten
      .slice(0, 10)
      .map((u) => `${u.tunnelId} ${u.metric} ${u.period}: ${u.value} (stored ${u.stored})`)
    const more = unwritten.length > 10 ? `, and ${unwritten.length - 10} more` : ''
    this.#log?.error(
      `usage counters: ${unwritten.length} counters could not be written before closing; ` +
        `these counts are lost: ${shown.join('; ')}${more}`,
    )
  }

  protected now(): Date {
    return this.#clock()
  }

  /**
   * Check every demand and count all of them or none, in memory, and queue the increments for
   * the database.
   */
  protected async decide(
    tunnelId: string,
    demands: readonly UsageDemand[],
    now: Date,
  ): Promise<ConsumeAllResult> {
    const period = periodOf(now)
    const check = (counters: PeriodCounters) => {
      const befores = demands.map((d) => counters.get(key(tunnelId, d.metric))?.value ?? 0)
      const refused = demands.findIndex((d, i) => demandRefused(d, befores[i] ?? 0))
      if (refused !== -1) return { befores, refused }
      demands.forEach((d, i) => {
        if (d.n === 0) return
        const counter = counterOf(counters, period, tunnelId, d.metric)
        counter.value = (befores[i] ?? 0) + d.n
        this.#writes.add(counter, d.n)
      })
      return { befores, refused }
    }
    // Once the month's counters are loaded (for every request but its first), decide at once.
    const ready = this.#ready.get(period)
    const { befores, refused } =
      ready !== undefined && !this.#closed ? check(ready) : await this.#withPeriod(period, check)
    const allowed = refused === -1
    const resetsAt = nextResetOf(now)
    const results = demands.map((d, i): ConsumeResult => {
      const before = befores[i] ?? 0
      const value = allowed ? before + d.n : before
      return {
        allowed,
        value,
        limit: d.limit,
        crossed80: allowed && crossesWarning(before, value, d.limit),
        period,
        resetsAt,
      }
    })
    const refusedBy = allowed ? null : (demands[refused]?.metric ?? null)
    return { allowed, refusedBy, results }
  }

  /**
   * Run `use` on the counters of `period` once they are loaded, synchronously after checking
   * they are still the live ones (a period evicted meanwhile is loaded again), so that no other
   * call can interleave between its read and its write.
   */
  async #withPeriod<T>(period: Period, use: (counters: PeriodCounters) => T): Promise<T> {
    for (;;) {
      this.#assertOpen()
      const loading = this.#load(period)
      const counters = await loading
      if (this.#periods.get(period) !== loading) continue
      this.#assertOpen()
      return use(counters)
    }
  }

  #load(period: Period): Promise<PeriodCounters> {
    const known = this.#periods.get(period)
    if (known !== undefined) return known
    const loading = this.#table.loadPeriod(period).then((rows) => {
      const counters: PeriodCounters = new Map()
      for (const { tunnelId, metric, value } of rows) {
        counters.set(key(tunnelId, metric), {
          period,
          tunnelId,
          metric,
          durable: value,
          value,
          stored: true,
        })
      }
      this.#evictOldPeriods(period)
      if (this.#periods.get(period) === loading) this.#ready.set(period, counters)
      return counters
    })
    this.#periods.set(period, loading)
    loading.catch(() => {
      if (this.#periods.get(period) === loading) this.#periods.delete(period)
    })
    return loading
  }

  /** Forget periods before the previous one (they are in the database), unless being written. */
  #evictOldPeriods(loaded: Period): void {
    if (loaded > this.#newestPeriod) this.#newestPeriod = loaded
    const keepFrom = previousPeriodOf(this.#newestPeriod)
    const busy = this.#writes.busyPeriods()
    for (const period of this.#periods.keys()) {
      if (period < keepFrom && period !== loaded && !busy.has(period)) {
        this.#periods.delete(period)
        this.#ready.delete(period)
      }
    }
  }

  #assertOpen(): void {
    if (this.#closed) throw new Error('usage counters are closed')
  }
}

function key(tunnelId: string, metric: UsageMetric): string {
  return `${tunnelId} ${metric}`
}

function counterOf(
  counters: PeriodCounters,
  period: Period,
  tunnelId: string,
  metric: UsageMetric,
): LiveCounter {
  const k = key(tunnelId, metric)
  let counter = counters.get(k)
  if (counter === undefined) {
    counter = { period, tunnelId, metric, durable: 0, value: 0, stored: false }
    counters.set(k, counter)
  }
  return counter
}
