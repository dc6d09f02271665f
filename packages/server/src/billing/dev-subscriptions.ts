/**
 * The dev provider's subscriptions, once burrowd takes payments through Paddle: the dev stand-in
 * let anyone subscribe without paying, and no event ends what it sold.
 */
import type { Kysely } from 'kysely'
import { lockAccount } from '../store/lock-account.js'
import type { Database } from '../store/schema.js'

/**
 * End every subscription made with the `dev` provider that still gives its account a plan, and
 * move those accounts to Free; return their ids. For burrowd taking payments through Paddle:
 * the dev stand-in let anyone subscribe without paying, and no event will ever end what it
 * sold (nor can the dashboard cancel another provider's subscription), so a plan taken while
 * the operator tried the dev provider would otherwise be kept for good.
 */
export async function endDevSubscriptions(
  db: Kysely<Database>,
  now: () => Date,
): Promise<string[]> {
  const rows = await db
    .selectFrom('subscriptions')
    .select('account_id')
    .where('provider', '=', 'dev')
    .where('state', '!=', 'free')
    .execute()
  const ended: string[] = []
  for (const { account_id: accountId } of rows) {
    const done = await db.transaction().execute(async (trx) => {
      if ((await lockAccount(trx, accountId, false)) === undefined) return false
      const result = await trx
        .updateTable('subscriptions')
        .set({
          status: 'canceled',
          state: 'free',
          cancels_at: null,
          updated_at: now().toISOString(),
        })
        .where('account_id', '=', accountId)
        .where('provider', '=', 'dev')
        .where('state', '!=', 'free')
        .executeTakeFirst()
      if (result.numUpdatedRows === 0n) return false
      await trx
        .updateTable('accounts')
        .set({ plan: 'free', plan_expires_at: null })
        .where('id', '=', accountId)
        .execute()
      return true
    })
    if (done) ended.push(accountId)
  }
  return ended
}
