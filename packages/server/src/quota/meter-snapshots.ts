/**
 * The usage meters' source (docs/api.md#billing): a periodic copy of the live counters into
 * `usage_snapshots`, stamped with the time it was taken, which `GET /api/billing` reads. Meters may
 * lag the live counters by one interval; they are a gauge, not a balance. Every node may take
 * snapshots: they write the same shared counters, so the rows agree.
 */
import type { Logger } from '@burrow/protocol'
import type { Kysely } from 'kysely'
import type { Database } from '../store/schema.js'
import { periodOf } from './period.js'
import type { Period } from './period.js'
import type { UsageSeed } from './redis-usage-counters.js'
import { USAGE_METRICS, type UsageCounters, type UsageSnapshotEntry } from './usage-counters.js'

/** The `settings` key holding when the last snapshot was taken (ISO-8601 UTC). */
export const METERS_TAKEN_AT_SETTING = 'meters_taken_at'

/** Rows per INSERT: 5 parameters each. */
const ROWS_PER_STATEMENT = 500

/** Options of `MeterSnapshots`. */
export interface MeterSnapshotsOptions {
  readonly log: Logger
  /** Milliseconds between snapshots (`BURROW_METER_SNAPSHOT_SECS`). */
  readonly intervalMs: number
  readonly clock?: () => Date
}

/** Takes a snapshot every interval, and a last one on `close()`. */
export class MeterSnapshots {
  readonly #db: Kysely<Database>
  readonly #counters: UsageCounters
  readonly #log: Logger
  readonly #clock: () => Date
  readonly #timer: NodeJS.Timeout
  #running: Promise<void> | null = null
  #lastPeriod: Period | null = null

  constructor(db: Kysely<Database>, counters: UsageCounters, options: MeterSnapshotsOptions) {
    this.#db = db
    this.#counters = counters
    this.#log = options.log
    this.#clock = options.clock ?? (() => new Date())
    this.#timer = setInterval(() => void this.take(), options.intervalMs)
    this.#timer.unref()
  }

  /** Take a snapshot now (or wait for the one being taken); never rejects. */
  async take(): Promise<void> {
    if (this.#running) return this.#running
    this.#running = this.#take()
      .catch((error: Error) => this.#log.warn(`usage meters: snapshot failed: ${error.message}`))
      .finally(() => {
        this.#running = null
      })
    return this.#running
  }

  /** Stop the timer and take a last snapshot (before the counters close). */
  async close(): Promise<void> {
    clearInterval(this.#timer)
    await this.#running
    await this.take()
  }

  async #take(): Promise<void> {
    const now = this.#clock()
    const period = periodOf(now)
    const entries = await this.#counters.snapshot(now)
    // The first snapshot of a month also completes the month before (its last minutes), and so
    // does a node's first snapshot: it may start (or restart after a crash) in the new month.
    // Those counts only ever raise last month's meter: counters that lost data (Redis
    // restarted empty) must not lower a meter taken when they had it.
    let before: UsageSnapshotEntry[] = []
    if (this.#lastPeriod === null || this.#lastPeriod < period) {
      const lastMoment = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1) - 1)
      before = await this.#counters.snapshot(lastMoment)
    }
    await writeSnapshot(this.#db, entries, now, before)
    this.#lastPeriod = period
  }
}

/**
 * Write `entries` to `usage_snapshots`, and `raiseOnly` where they are higher than the stored
 * value (or new), and record `takenAt` as the meters' time. An entry does not replace one taken
 * later, nor the meters' time a later one: another node may read the counters after this one
 * and write first.
 */
export async function writeSnapshot(
  db: Kysely<Database>,
  entries: readonly UsageSnapshotEntry[],
  takenAt: Date,
  raiseOnly: readonly UsageSnapshotEntry[] = [],
): Promise<void> {
  const at = takenAt.toISOString()
  const rows = entries.map((e) => ({
    period: e.period,
    tunnel_id: e.tunnelId,
    metric: e.metric,
    value: e.value,
    taken_at: at,
  }))
  const raising = raiseOnly.map((e) => ({
    period: e.period,
    tunnel_id: e.tunnelId,
    metric: e.metric,
    value: e.value,
    taken_at: at,
  }))
  await db.transaction().execute(async (trx) => {
    for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
      await trx
        .insertInto('usage_snapshots')
        .values(rows.slice(start, start + ROWS_PER_STATEMENT))
        .onConflict((oc) =>
          oc
            .columns(['period', 'tunnel_id', 'metric'])
            .doUpdateSet((eb) => ({
              value: eb.ref('excluded.value'),
              taken_at: eb.ref('excluded.taken_at'),
            }))
            .where((eb) => eb('excluded.taken_at', '>=', eb.ref('usage_snapshots.taken_at'))),
        )
        .execute()
    }
    for (let start = 0; start < raising.length; start += ROWS_PER_STATEMENT) {
      await trx
        .insertInto('usage_snapshots')
        .values(raising.slice(start, start + ROWS_PER_STATEMENT))
        .onConflict((oc) =>
          oc
            .columns(['period', 'tunnel_id', 'metric'])
            .doUpdateSet((eb) => ({
              value: eb.ref('excluded.value'),
              taken_at: eb.ref('excluded.taken_at'),
            }))
            .where((eb) => eb('excluded.value', '>', eb.ref('usage_snapshots.value'))),
        )
        .execute()
    }
    await trx
      .insertInto('settings')
      .values({ key: METERS_TAKEN_AT_SETTING, value: at })
      .onConflict((oc) =>
        oc
          .column('key')
          .doUpdateSet({ value: at })
          .where((eb) => eb('excluded.value', '>=', eb.ref('settings.value'))),
      )
      .execute()
  })
}

/** A tunnel's month as the last snapshot has it: where Redis takes up a month it lost. */
export function snapshotSeed(db: Kysely<Database>): UsageSeed {
  return async (tunnelId, period) => {
    const rows = await db
      .selectFrom('usage_snapshots')
      .select(['metric', 'value'])
      .where('period', '=', period)
      .where('tunnel_id', '=', tunnelId)
      .execute()
    const seed = new Map<(typeof USAGE_METRICS)[number], number>()
    for (const row of rows) {
      const metric = USAGE_METRICS.find((m) => m === row.metric)
      // Stored as bigint on PostgreSQL, which reads back as text.
      if (metric !== undefined) seed.set(metric, Number(row.value))
    }
    return seed
  }
}
