/**
 * An account's tunnels in serving order (pinned first, then oldest first), each marked serving
 * or not: the first as many as the plan in force allows serve.
 */
import type { Kysely } from 'kysely'
import { PLANS } from '../plans.js'
import { planInForce, toDate } from './account-row.js'
import type { Database } from './schema.js'
import { toStatus, type TunnelStatus } from './tunnel-row.js'

/** The account's tunnels in serving order, each marked serving or not, read through `db`. */
export async function tunnelsInServingOrder(
  db: Kysely<Database>,
  accountId: string,
  now: Date,
): Promise<TunnelStatus[]> {
  const rows = await db
    .selectFrom('tunnels')
    .innerJoin('accounts', 'accounts.id', 'tunnels.account_id')
    .selectAll('tunnels')
    .select([
      'accounts.plan as account_plan',
      'accounts.plan_expires_at as account_plan_expires_at',
    ])
    .where('tunnels.account_id', '=', accountId)
    // The same order as the rank in `#withAccountAndRank`.
    .orderBy('tunnels.pinned', 'desc')
    .orderBy('tunnels.created_at', 'asc')
    .orderBy('tunnels.id', 'asc')
    .execute()
  const first = rows[0]
  if (first === undefined) return []
  const plan = planInForce(
    accountId,
    first.account_plan,
    toDate(first.account_plan_expires_at),
    now,
  )
  const limit = PLANS[plan].tunnels
  return rows.map((row, index) => toStatus(row, index < limit))
}
