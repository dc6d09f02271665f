/**
 * Call-history retention (the plan catalog in `plans.ts`: Free 24 hours, Pro 30 days, Scale 60
 * days): deletes records older than the retention of each account's effective plan (and, in the
 * same run, per-method metrics past theirs: `governance/metrics-purge.ts`), so a downgrade
 * shortens retention from the next purge on. The effective plan is the billing rule the account row
 * carries: `plan`, or Free once `plan_expires_at` has passed. An unknown plan gets the shortest
 * retention. Once a month (at start, then in the first run of each month), the usage rows of
 * tunnels deleted in the months before go too (`usage-purge.ts`).
 */
import { purgeCallMetrics } from '../governance/metrics-purge.js'
import { PLAN_IDS, PLANS, type PlanId } from '../plans.js'
import type { Logger } from '@burrow/protocol'
import type { ExpressionBuilder, Kysely } from 'kysely'
import { deleteInBatches, PURGE_BATCH_ROWS } from '../store/delete-in-batches.js'
import type { Database } from '../store/schema.js'
import { periodOf, type Period } from './period.js'
import { purgeDeletedTunnelsUsage } from './usage-purge.js'

const HOUR_MS = 60 * 60 * 1000

/** Records deleted by one purge, by effective plan. */
export type PurgeCounts = Record<PlanId, number>

/** Delete call history older than each account's plan retention at `now`. */
export async function purgeCallHistory(
  db: Kysely<Database>,
  now: Date,
  batchRows: number = PURGE_BATCH_ROWS,
): Promise<PurgeCounts> {
  const at = now.toISOString()
  const counts = { free: 0, pro: 0, scale: 0 }
  for (const plan of PLAN_IDS) {
    const cutoff = new Date(now.getTime() - PLANS[plan].historyRetentionHours * HOUR_MS)
    counts[plan] = await deleteInBatches(batchRows, async (limit) => {
      const result = await db
        .deleteFrom('call_history')
        .where('id', 'in', (old) =>
          old
            .selectFrom('call_history')
            .select('id')
            .where('at', '<', cutoff.toISOString())
            .where('tunnel_id', 'in', (eb) =>
              eb
                .selectFrom('tunnels')
                .innerJoin('accounts', 'accounts.id', 'tunnels.account_id')
                .select('tunnels.id')
                .where((a) => effectivelyOn(a, plan, at)),
            )
            .limit(limit),
        )
        .executeTakeFirst()
      return Number(result.numDeletedRows)
    })
  }
  return counts
}

/** The accounts whose plan at `at` (ISO) is `plan`. */
function effectivelyOn(
  eb: ExpressionBuilder<Database, 'accounts' | 'tunnels'>,
  plan: PlanId,
  at: string,
) {
  const expired = eb.and([
    eb('accounts.plan_expires_at', 'is not', null),
    eb('accounts.plan_expires_at', '<=', at),
  ])
  if (plan === 'free') {
    const paid = PLAN_IDS.filter((p) => p !== 'free')
    return eb.or([eb('accounts.plan', 'not in', paid), expired])
  }
  return eb.and([eb('accounts.plan', '=', plan), eb.not(expired)])
}

/** Options of `HistoryPurger`. */
export interface HistoryPurgerOptions {
  readonly log: Logger
  /** Milliseconds between purges. Default 10 minutes. */
  readonly intervalMs?: number
  readonly clock?: () => Date
}

/** Runs `purgeCallHistory` periodically (and once at start). */
export class HistoryPurger {
  readonly #db: Kysely<Database>
  readonly #log: Logger
  readonly #clock: () => Date
  readonly #timer: NodeJS.Timeout
  #running: Promise<void> | null = null
  /** The month whose earlier months' usage rows of deleted tunnels were purged last. */
  #usagePurgedFor: Period | null = null

  constructor(db: Kysely<Database>, options: HistoryPurgerOptions) {
    this.#db = db
    this.#log = options.log
    this.#clock = options.clock ?? (() => new Date())
    this.#timer = setInterval(() => void this.run(), options.intervalMs ?? 10 * 60 * 1000)
    this.#timer.unref()
    void this.run()
  }

  /** Purge now (unless a purge is running); never rejects. */
  async run(): Promise<void> {
    if (this.#running) return this.#running
    const now = this.#clock()
    this.#running = purgeCallHistory(this.#db, now)
      .then(async (counts) => {
        const total = counts.free + counts.pro + counts.scale
        if (total > 0) this.#log.debug(`call history: purged ${total} records past retention`)
        const metrics = await purgeCallMetrics(this.#db, now)
        if (metrics > 0) this.#log.debug(`call metrics: purged ${metrics} rows past retention`)
        await this.#purgeUsage(now)
      })
      .catch((error: Error) => this.#log.warn(`call history: purge failed: ${error.message}`))
      .finally(() => {
        this.#running = null
      })
    return this.#running
  }

  /** The usage rows of deleted tunnels, once per month (they wait at most one run's interval). */
  async #purgeUsage(now: Date): Promise<void> {
    const period = periodOf(now)
    if (this.#usagePurgedFor === period) return
    const { counters, snapshots, released } = await purgeDeletedTunnelsUsage(this.#db, now)
    this.#usagePurgedFor = period
    const total = counters + snapshots + released
    if (total > 0)
      this.#log.debug(`usage: purged ${total} rows of tunnels deleted before ${period}`)
  }

  /** Stop purging; waits for a purge in progress. */
  async close(): Promise<void> {
    clearInterval(this.#timer)
    await this.#running
  }
}
