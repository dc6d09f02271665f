/**
 * Per-method metrics: every recorded call adds to its tunnel's counts per method, tool and
 * outcome (`ok`, `error` or the refusal's policy code), with its latency in buckets, for a
 * 5-minute period and an hour. Counts gather in memory and are written every few seconds as
 * upserts that add to the stored rows, so every node adds its own and nothing is read back.
 * Each call is counted in three spans: 5-minute rows serve the last hour, hourly ones the last
 * day, daily ones the last 30 days, so a report reads a few dozen periods whatever its window.
 */
import type { Logger } from '@burrow/protocol'
import { sql, type Kysely } from 'kysely'
import type { CallRecord } from '../quota/call-history.js'
import { METRIC_BUCKET_COLUMNS } from '../store/migrations/008-governance.js'
import type { Database } from '../store/schema.js'
import { isDatabaseStalled, neverSent } from '../store/database-stalled.js'
import { bucketOf, LATENCY_BUCKETS } from './latency-buckets.js'

/** The periods rows are kept for, in milliseconds (UTC days for `1d`). */
export const SPANS = { '5m': 5 * 60_000, '1h': 3_600_000, '1d': 86_400_000 } as const
export type Span = keyof typeof SPANS

interface Cell {
  readonly tunnelId: string
  readonly span: Span
  readonly periodStart: string
  readonly method: string
  readonly tool: string
  readonly outcome: string
  count: number
  readonly buckets: number[]
}

/** The ISO start of the period of `span` holding `ms`, from a small cache (they change rarely). */
const starts = new Map<number, string>()
function periodStart(ms: number, span: Span): string {
  const start = Math.floor(ms / SPANS[span]) * SPANS[span]
  let iso = starts.get(start)
  if (iso === undefined) {
    if (starts.size > 64) starts.clear()
    iso = new Date(start).toISOString()
    starts.set(start, iso)
  }
  return iso
}

/**
 * Distinct method and tool pairs one tunnel gets rows for per UTC day on one node, in every span
 * alike: the names are the agent's to choose, so past this many the rest of the day is counted
 * together under `OTHER`. A pair is named in all three spans or in none, so a day's row of a
 * pair is the sum of its hourly and 5-minute rows.
 */
export const MAX_PAIRS_PER_DAY = 1000
/** The method and tool the pairs past `MAX_PAIRS_PER_DAY` are counted under. */
export const OTHER = '(other)'

/** Rows per upsert: 70 parameters each, within SQLite's limit. */
const ROWS_PER_STATEMENT = 200

/**
 * Rows kept for the next write while the database is away, by default: each is some 700 bytes,
 * and an outage of hours brings new rows every period. Past this, rows not written are let go.
 */
const KEPT_ROWS = 50_000

/** Options of `CallMetrics`. */
export interface CallMetricsOptions {
  readonly log: Logger
  /** Milliseconds between writes. Default 5 seconds. */
  readonly flushMs?: number
  /** Rows kept for the next write at most when a write fails (`KEPT_ROWS`). */
  readonly capacity?: number
}

/** Gathers per-method metrics and writes them. */
export class CallMetrics {
  readonly #db: Kysely<Database>
  readonly #log: Logger
  readonly #cells = new Map<string, Cell>()
  /** The pairs each tunnel has rows for, by tunnel and UTC day, while the day lasts. */
  readonly #pairs = new Map<string, Set<string>>()
  readonly #timer: NodeJS.Timeout
  readonly #capacity: number
  #writing: Promise<void> | null = null

  constructor(db: Kysely<Database>, opts: CallMetricsOptions) {
    this.#db = db
    this.#log = opts.log
    this.#capacity = opts.capacity ?? KEPT_ROWS
    this.#timer = setInterval(() => void this.flush(), opts.flushMs ?? 5000)
    this.#timer.unref()
  }

  /** Rows gathered and not yet written. */
  get pending(): number {
    return this.#cells.size
  }

  /** Count `r`. Never throws, never waits. */
  record(r: CallRecord): void {
    const outcome = r.policyCode ?? r.outcome ?? 'ok'
    const bucket = bucketOf(r.durationMs)
    const at = r.at.getTime()
    const day = `${r.tunnelId}\u0000${periodStart(at, '1d')}`
    let method = r.method
    let tool = (r.tool ?? '').slice(0, 200)
    let pairs = this.#pairs.get(day)
    if (pairs === undefined) this.#pairs.set(day, (pairs = new Set()))
    const pair = `${method}\u0000${tool}`
    if (!pairs.has(pair)) {
      if (pairs.size < MAX_PAIRS_PER_DAY) pairs.add(pair)
      else [method, tool] = [OTHER, OTHER]
    }
    for (const span of ['5m', '1h', '1d'] as const) {
      const start = periodStart(at, span)
      const period = `${r.tunnelId}\u0000${span}\u0000${start}`
      const key = `${period}\u0000${method}\u0000${tool}\u0000${outcome}`
      let cell = this.#cells.get(key)
      if (!cell) {
        cell = {
          tunnelId: r.tunnelId,
          span,
          periodStart: start,
          method,
          tool,
          outcome,
          count: 0,
          buckets: new Array<number>(LATENCY_BUCKETS).fill(0),
        }
        this.#cells.set(key, cell)
      }
      cell.count++
      cell.buckets[bucket]!++
    }
  }

  /** Write what has gathered; never rejects. */
  async flush(): Promise<void> {
    while (this.#writing) await this.#writing
    if (this.#cells.size === 0) return
    const cells = [...this.#cells.values()]
    this.#cells.clear()
    this.#forgetEndedPeriods()
    this.#writing = this.#write(cells).finally(() => (this.#writing = null))
    await this.#writing
  }

  /** The pairs of days that ended an hour ago are no longer needed: late records are few. */
  #forgetEndedPeriods(): void {
    const now = Date.now()
    for (const day of this.#pairs.keys()) {
      const start = day.slice(day.indexOf('\u0000') + 1)
      if (Date.parse(start) + SPANS['1d'] + SPANS['1h'] < now) this.#pairs.delete(day)
    }
  }

  /** Stop the timer and write what is left. */
  async close(): Promise<void> {
    clearInterval(this.#timer)
    await this.flush()
  }

  async #write(cells: readonly Cell[]): Promise<void> {
    for (let i = 0; i < cells.length; i += ROWS_PER_STATEMENT) {
      const batch = cells.slice(i, i + ROWS_PER_STATEMENT)
      const after = () => cells.slice(i + batch.length)
      try {
        await this.#upsert(batch.map(rowOf))
      } catch (err) {
        if (isDatabaseStalled(err as Error)) return this.#stalled(err as Error, batch, after())
        // Most likely a tunnel deleted meanwhile (the foreign key): keep the other rows.
        for (const [j, cell] of batch.entries()) {
          try {
            await this.#upsert([rowOf(cell)])
          } catch (rowErr) {
            const error = rowErr as Error
            if (isDatabaseStalled(error)) {
              return this.#stalled(error, [cell], [...batch.slice(j + 1), ...after()])
            }
            this.#log.debug(`call metrics: a row of ${cell.tunnelId} not written: ${error.message}`)
          }
        }
      }
    }
  }

  /**
   * The database stalled writing `tried`: nothing more is tried now (each statement would wait
   * the full bound, holding the next flushes and shutdown). `tried` is kept for the next write
   * when it never reached the database; else it may have been added all the same and is let go,
   * never counted twice. `after`, not sent, is kept.
   */
  #stalled(err: Error, tried: readonly Cell[], after: readonly Cell[]): void {
    const unsent = neverSent(err) ? [...tried, ...after] : after
    const kept = unsent.filter((cell) => this.#keep(cell)).length
    const timedOut = tried.length + after.length - unsent.length
    const overCapacity = unsent.length - kept
    this.#log.warn(
      `call metrics: the database did not answer (${err.message}); ` +
        `${kept} rows kept for the next write` +
        (timedOut > 0 ? `, ${timedOut} lost unless the write that timed out landed` : '') +
        (overCapacity > 0 ? `, ${overCapacity} lost past the ${this.#capacity} rows kept` : ''),
    )
  }

  /**
   * Put `cell`, not written, back with what gathered since; false when it is let go: a new row
   * past the capacity (an outage of hours brings new rows every period, and would hold them all).
   */
  #keep(cell: Cell): boolean {
    const key = [cell.tunnelId, cell.span, cell.periodStart, cell.method, cell.tool, cell.outcome]
    const gathered = this.#cells.get(key.join('\u0000'))
    if (gathered === undefined) {
      if (this.#cells.size >= this.#capacity) return false
      this.#cells.set(key.join('\u0000'), cell)
      return true
    }
    gathered.count += cell.count
    cell.buckets.forEach((n, b) => (gathered.buckets[b]! += n))
    return true
  }

  #upsert(rows: readonly Record<string, string | number>[]): Promise<unknown> {
    return this.#db
      .insertInto('call_metrics')
      .values(rows as never)
      .onConflict((oc) =>
        oc
          .columns(['tunnel_id', 'span', 'period_start', 'method', 'tool', 'outcome'])
          .doUpdateSet(
            Object.fromEntries(
              ['count', ...METRIC_BUCKET_COLUMNS].map((column) => [
                column,
                sql`${sql.ref(`call_metrics.${column}`)} + ${sql.ref(`excluded.${column}`)}`,
              ]),
            ) as never,
          ),
      )
      .execute()
  }
}

/** The stored row of `c`. */
function rowOf(c: Cell): Record<string, string | number> {
  const row: Record<string, string | number> = {
    tunnel_id: c.tunnelId,
    span: c.span,
    period_start: c.periodStart,
    method: c.method,
    tool: c.tool,
    outcome: c.outcome,
    count: c.count,
  }
  METRIC_BUCKET_COLUMNS.forEach((column, b) => (row[column] = c.buckets[b]!))
  return row
}
