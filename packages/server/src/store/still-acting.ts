/**
 * Whether the request's credential may still act for an account, asked on its own: for a change
 * made outside the database (billing asks the payment provider), which no write of ours under
 * the account's lock checks. Run once the request's body is read, just before the change.
 */
import type { Kysely } from 'kysely'
import { lockAccount } from './lock-account.js'
import type { Database } from './schema.js'

/**
 * Throw `StoreError` `unauthorized` when the browser session or API token the current request
 * acts with (`actAs`) no longer exists for account `accountId`; checked under the account's lock,
 * in order with a revocation that holds it (a password reset's). Nothing when no request acts.
 */
export async function checkStillActing(db: Kysely<Database>, accountId: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await lockAccount(trx, accountId)
  })
}
