/**
 * An account's tunnels deleted this month, so that its next new tunnel carries on a deleted
 * one's month of usage. The monthly quotas (tool calls, bandwidth) are per tunnel, and counted
 * by tunnel id: a tunnel that used up its month, deleted and created again (under the same
 * address, even), would otherwise start the month at zero, as often as its owner liked. A new
 * tunnel takes the most recently deleted one of the same month, if any, and its counters start
 * where that one's stood (the caller copies them: `quota/inherit-usage.ts`); so an account's
 * tunnels never use more in a month than as many tunnels as its plan allows could. The rows of
 * earlier months are dropped as the account's next tunnel is created.
 */
import type { Kysely } from 'kysely'
import type { Database } from './schema.js'

/** Note, in the deleting transaction, that `tunnelId` of `accountId` was deleted `at`. */
export async function releaseTunnel(
  trx: Kysely<Database>,
  accountId: string,
  tunnelId: string,
  at: Date,
): Promise<void> {
  await trx
    .insertInto('released_tunnels')
    .values({ account_id: accountId, tunnel_id: tunnelId, released_at: at.toISOString() })
    .onConflict((oc) => oc.doNothing())
    .execute()
}

/**
 * In the creating transaction (under the account's lock): the id of the tunnel of `accountId`
 * deleted last in `at`'s month, no longer to be taken by another, or null when none is left.
 */
export async function takeReleasedTunnel(
  trx: Kysely<Database>,
  accountId: string,
  at: Date,
): Promise<string | null> {
  const monthStart = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1)).toISOString()
  await trx
    .deleteFrom('released_tunnels')
    .where('account_id', '=', accountId)
    .where('released_at', '<', monthStart)
    .execute()
  const latest = await trx
    .selectFrom('released_tunnels')
    .select('tunnel_id')
    .where('account_id', '=', accountId)
    .orderBy('released_at', 'desc')
    .orderBy('tunnel_id', 'desc')
    .limit(1)
    .executeTakeFirst()
  if (latest === undefined) return null
  await trx
    .deleteFrom('released_tunnels')
    .where('account_id', '=', accountId)
    .where('tunnel_id', '=', latest.tunnel_id)
    .execute()
  return latest.tunnel_id
}
