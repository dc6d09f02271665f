/**
 * The account's billing history: what the payment provider reported and burrowd applied to the
 * account, newest first (subscribed, payment failed, paused, resumed, canceled, a chargeback and
 * its reversal), from the events recorded in `billing_events`. Plan-change details and receipts
 * are the provider's (its emails and customer portal); this is what changed the account here.
 */
import { sql, type Kysely } from 'kysely'
import type { Database } from '../store/schema.js'
import { REVERSAL_ACTION } from './chargeback-reversal.js'

/** What an entry of the history says happened. */
export type BillingHistoryKind =
  | 'subscribed'
  | 'payment_failed'
  | 'paused'
  | 'resumed'
  | 'canceled'
  | 'chargeback'
  | 'chargeback_reversed'

/** One entry: what happened, when the provider says it did. */
export interface BillingHistoryEntry {
  readonly at: Date
  readonly kind: BillingHistoryKind
}

/** Entries read at most (the newest). */
export const BILLING_HISTORY_LIMIT = 50

const KIND_OF_TYPE: Readonly<Record<string, BillingHistoryKind>> = {
  'subscription.created': 'subscribed',
  'subscription.imported': 'subscribed',
  'subscription.past_due': 'payment_failed',
  'subscription.paused': 'paused',
  'subscription.resumed': 'resumed',
  'subscription.canceled': 'canceled',
}

/** The account's history, newest first, at most `BILLING_HISTORY_LIMIT` entries. */
export async function readBillingHistory(
  db: Kysely<Database>,
  accountId: string,
): Promise<BillingHistoryEntry[]> {
  const rows = await db
    .selectFrom('billing_events')
    .select(['type', 'action', 'occurred_at'])
    .where('account_id', '=', accountId)
    .where('outcome', '=', 'applied')
    .where((eb) =>
      eb.or([eb('type', 'in', Object.keys(KIND_OF_TYPE)), eb('type', 'like', 'adjustment.%')]),
    )
    // A total order, the same on PostgreSQL and SQLite: a row from before migration 024 (no
    // microseconds) is read as the start of its millisecond, so after the rows of that
    // millisecond that have them (PostgreSQL sorts nulls first when descending, SQLite last);
    // rows still tied go newest received first, then by event id.
    .orderBy('occurred_at', 'desc')
    .orderBy(sql`occurred_at_us is null`, 'asc')
    .orderBy('occurred_at_us', 'desc')
    .orderBy('received_at', 'desc')
    .orderBy('provider', 'desc')
    .orderBy('event_id', 'desc')
    .limit(BILLING_HISTORY_LIMIT)
    .execute()
  return rows.map((row) => ({
    at: new Date(row.occurred_at),
    // Adjustments applied are chargebacks and their reversals.
    kind: row.type.startsWith('adjustment.')
      ? row.action === REVERSAL_ACTION
        ? 'chargeback_reversed'
        : 'chargeback'
      : KIND_OF_TYPE[row.type]!,
  }))
}
