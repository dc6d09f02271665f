/**
 * Migration `032_daily_call_metrics`: the 30-day window of per-method metrics reads daily rows
 * (span `1d`) rather than hourly ones, so the daily rows of the days already kept are made from
 * their hourly rows: each day's sums per tunnel, method, tool and outcome. A day gets rows for its
 * 1,000 busiest method and tool pairs (`MAX_PAIRS_PER_DAY` as this migration shipped), and the
 * rest of its calls under `(other)`, as burrowd counts a day from now on; hourly rows were bound
 * per hour, so a day of them may name 24,000 pairs. One statement per tunnel, each reading that
 * tunnel's hourly rows along the primary key. Nothing of the schema changes (a span is text).
 */
import { sql, type Kysely, type Migration } from 'kysely'
import { METRIC_BUCKET_COLUMNS } from './008-governance.js'

const PAIRS_PER_DAY = 1000
const OTHER = '(other)'

export const dailyCallMetricsMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    const tunnels = await sql<{ id: string }>`select id from tunnels order by id`.execute(db)
    const columns = sql.join(METRIC_BUCKET_COLUMNS.map((c) => sql.ref(c)))
    const sums = sql.join(METRIC_BUCKET_COLUMNS.map((c) => sql`sum(${sql.ref(`h.${c}`)})`))
    const day = (t: string) => sql`substr(${sql.ref(`${t}.period_start`)}, 1, 10)`
    // Literals, not parameters: PostgreSQL matches the select's expressions to the group's by text.
    const named = (column: 'method' | 'tool') =>
      sql`case when r.place <= ${sql.lit(PAIRS_PER_DAY)} then ${sql.ref(`h.${column}`)} else ${sql.lit(OTHER)} end`
    for (const { id } of tunnels.rows) {
      await sql`
        insert into call_metrics
          (tunnel_id, span, period_start, method, tool, outcome, count, ${columns})
        select h.tunnel_id, '1d', ${day('h')} || 'T00:00:00.000Z', ${named('method')},
          ${named('tool')}, h.outcome, sum(h.count), ${sums}
        from call_metrics h
        join (
          select p.period_start as day, p.method, p.tool, row_number() over (
            partition by p.period_start order by p.calls desc, p.method, p.tool
          ) as place
          from (
            select ${day('c')} as period_start, c.method, c.tool, sum(c.count) as calls
            from call_metrics c
            where c.tunnel_id = ${id} and c.span = '1h'
            group by ${day('c')}, c.method, c.tool
          ) p
        ) r on r.day = ${day('h')} and r.method = h.method and r.tool = h.tool
        where h.tunnel_id = ${id} and h.span = '1h'
        group by h.tunnel_id, ${day('h')}, ${named('method')}, ${named('tool')}, h.outcome
      `.execute(db)
    }
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await sql`delete from call_metrics where span = '1d'`.execute(db)
  },
}
