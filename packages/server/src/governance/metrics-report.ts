/**
 * What the Metrics tab and `GET /api/tunnels/:id/metrics` show: per method and tool, over the
 * last hour, day or 30 days, the calls, errors, refusals by policy code and latency percentiles
 * (of the calls that were answered, from the latency buckets: an upper bound within 25%), and a
 * series of calls, errors and refusals per period for the charts.
 *
 * Each window reads the span that gives it a few dozen periods (`WINDOW_SPANS`): agents choose
 * the names they send, and a tunnel has up to `MAX_PAIRS_PER_DAY` pairs a day, each with a row per
 * period and outcome, so a report of 30 days of hourly rows read 720,000 rows of one tunnel that
 * invented 1,000 names an hour, for seconds of the event loop (docs/security.md).
 */
import { sql, type Kysely } from 'kysely'
import { METRIC_BUCKET_COLUMNS } from '../store/migrations/008-governance.js'
import type { Database } from '../store/schema.js'
import { SPANS, type Span } from './call-metrics.js'
import { percentileMs } from './latency-buckets.js'

/** The windows offered. */
export const METRIC_WINDOWS = {
  '1h': 3_600_000,
  '24h': 86_400_000,
  '30d': 30 * 86_400_000,
} as const
export type MetricWindow = keyof typeof METRIC_WINDOWS

/** The span each window reads: 12 five-minute periods, 24 hours, 30 UTC days. */
export const WINDOW_SPANS: Readonly<Record<MetricWindow, Span>> = {
  '1h': '5m',
  '24h': '1h',
  '30d': '1d',
}

/**
 * Most method and tool pairs a report lists, the busiest first. Agents choose the names they
 * send (any method, any tool), so a tunnel can have millions of pairs; the series still counts
 * every call.
 */
export const MAX_REPORTED_METHODS = 500

/** One method (and tool) over the window. */
export interface MethodMetrics {
  readonly method: string
  /** The tool, prompt or resource, or null. */
  readonly tool: string | null
  readonly calls: number
  readonly errors: number
  readonly refusals: Readonly<Record<string, number>>
  readonly p50Ms: number | null
  readonly p95Ms: number | null
  readonly p99Ms: number | null
}

/** One period of the series. */
export interface MetricPoint {
  readonly start: string
  readonly calls: number
  readonly errors: number
  readonly refused: number
}

/** The report of a window. */
export interface MetricsReport {
  readonly window: MetricWindow
  readonly since: string
  readonly span: Span
  readonly methods: readonly MethodMetrics[]
  readonly series: readonly MetricPoint[]
}

/** The report of `tunnelId` over `window`, as of `now`. */
export async function metricsReport(
  db: Kysely<Database>,
  tunnelId: string,
  window: MetricWindow,
  now: Date,
): Promise<MetricsReport> {
  const span = WINDOW_SPANS[window]
  const step = SPANS[span]
  const since = new Date(Math.floor((now.getTime() - METRIC_WINDOWS[window]) / step + 1) * step)
  // The window's periods named one by one: each is a search of the primary key. PostgreSQL costs
  // a range of `period_start` from the column's spread over every span, took a day's hourly rows
  // for a good part of the table, and scanned all of it.
  const periods: string[] = []
  for (let t = since.getTime(); t <= now.getTime(); t += step) {
    periods.push(new Date(t).toISOString())
  }
  const sums = METRIC_BUCKET_COLUMNS.map((c) => sql<string>`sum(${sql.ref(`m.${c}`)})`.as(c))
  // Agents name methods and tools as they like: only the busiest pairs are read and shown.
  const rows = (await db
    .with('top', (q) =>
      q
        .selectFrom('call_metrics')
        .select(['method', 'tool'])
        .where('tunnel_id', '=', tunnelId)
        .where('span', '=', span)
        .where('period_start', 'in', periods)
        .groupBy(['method', 'tool'])
        .orderBy(sql`sum(count)`, 'desc')
        .orderBy('method')
        .orderBy('tool')
        .limit(MAX_REPORTED_METHODS),
    )
    .selectFrom('call_metrics as m')
    .innerJoin('top', (j) =>
      j.onRef('top.method', '=', 'm.method').onRef('top.tool', '=', 'm.tool'),
    )
    .select(['m.method', 'm.tool', 'm.outcome', sql<string>`sum(m.count)`.as('count'), ...sums])
    .where('m.tunnel_id', '=', tunnelId)
    .where('m.span', '=', span)
    .where('m.period_start', 'in', periods)
    .groupBy(['m.method', 'm.tool', 'm.outcome'])
    .execute()) as unknown as Record<string, string | number>[]
  const byMethod = new Map<
    string,
    {
      method: string
      tool: string
      calls: number
      errors: number
      refusals: Record<string, number>
      buckets: number[]
    }
  >()
  for (const row of rows) {
    const key = `${row.method}\u0000${row.tool}`
    let m = byMethod.get(key)
    if (!m) {
      m = {
        method: String(row.method),
        tool: String(row.tool),
        calls: 0,
        errors: 0,
        refusals: {},
        buckets: new Array<number>(METRIC_BUCKET_COLUMNS.length).fill(0),
      }
      byMethod.set(key, m)
    }
    const count = Number(row.count)
    const outcome = String(row.outcome)
    m.calls += count
    if (outcome === 'error') m.errors += count
    if (outcome === 'ok' || outcome === 'error') {
      METRIC_BUCKET_COLUMNS.forEach((c, i) => (m.buckets[i]! += Number(row[c])))
    } else {
      m.refusals[outcome] = (m.refusals[outcome] ?? 0) + count
    }
  }
  const methods = [...byMethod.values()]
    .map((m) => ({
      method: m.method,
      tool: m.tool === '' ? null : m.tool,
      calls: m.calls,
      errors: m.errors,
      refusals: m.refusals,
      p50Ms: percentileMs(m.buckets, 50),
      p95Ms: percentileMs(m.buckets, 95),
      p99Ms: percentileMs(m.buckets, 99),
    }))
    .sort((a, b) => b.calls - a.calls || a.method.localeCompare(b.method))
  const points = await db
    .selectFrom('call_metrics')
    .select(['period_start', 'outcome', sql<string>`sum(count)`.as('count')])
    .where('tunnel_id', '=', tunnelId)
    .where('span', '=', span)
    .where('period_start', 'in', periods)
    .groupBy(['period_start', 'outcome'])
    .execute()
  const series: MetricPoint[] = []
  const byStart = new Map<string, { calls: number; errors: number; refused: number }>()
  for (const start of periods) byStart.set(start, { calls: 0, errors: 0, refused: 0 })
  for (const p of points) {
    const point = byStart.get(p.period_start)
    if (!point) continue
    const n = Number(p.count)
    point.calls += n
    if (p.outcome === 'error') point.errors += n
    else if (p.outcome !== 'ok') point.refused += n
  }
  for (const [start, p] of byStart) series.push({ start, ...p })
  return { window, since: since.toISOString(), span, methods, series }
}
