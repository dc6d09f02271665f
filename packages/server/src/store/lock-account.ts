/**
 * Locking an account row inside a transaction, so that a check and the write it allows (count
 * the account's tunnels, then insert one) cannot interleave with another such pair. This is
 * what makes the plan's tunnel limit hold under concurrent creates, and what makes billing apply
 * two events for one account one after the other.
 */

import { PostgresAdapter } from 'kysely'
import type { Transaction } from 'kysely'
import type { Database } from './schema.js'
import { checkActingCredential } from './acting-credential.js'

/** What the callers of `lockAccount` need of the row. */
export interface LockedAccount {
  readonly id: string
  readonly slug: string
  readonly plan: string
  readonly plan_expires_at: string | null
}

/**
 * Lock account `accountId` until `trx` ends and return its row, or undefined when there is none.
 * A request of the dashboard or the API is refused (`StoreError` `unauthorized`) when the
 * credential it acts with was revoked meanwhile (`acting-credential.ts`), unless `checked` is
 * false (billing: what the payment provider already did is recorded whoever asked).
 *
 * PostgreSQL: `SELECT … FOR UPDATE` locks the row; a second transaction waits here until the
 * first commits, and then (READ COMMITTED) sees its inserts.
 *
 * SQLite has no row locks. Within one process Kysely's SQLite driver owns one connection and
 * lends it to one transaction at a time, so transactions never interleave anyway. To hold across
 * processes too (the operator's `burrowd tunnel create` beside `burrowd serve`), the first
 * statement is a write that changes nothing: it takes the database's write lock at once (waiting
 * for `busy_timeout`), instead of reading first and failing when another process wrote meanwhile.
 */
export async function lockAccount(
  trx: Transaction<Database>,
  accountId: string,
  checked = true,
): Promise<LockedAccount | undefined> {
  const columns = ['id', 'slug', 'plan', 'plan_expires_at'] as const
  const row =
    trx.getExecutor().adapter instanceof PostgresAdapter
      ? await trx
          .selectFrom('accounts')
          .select(columns)
          .where('id', '=', accountId)
          .forUpdate()
          .executeTakeFirst()
      : await trx
          .updateTable('accounts')
          .set((eb) => ({ plan: eb.ref('plan') }))
          .where('id', '=', accountId)
          .returning(columns)
          .executeTakeFirst()
  if (row !== undefined && checked) await checkActingCredential(trx, accountId)
  return row
}
