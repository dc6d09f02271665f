/**
 * Whether a subscription's news is older than what was applied to the account, at the
 * provider's full precision (`provider-time.ts`): an event or snapshot that happened before the
 * newest change applied is stale and changes nothing (docs/decisions.md, "Billing"). Written
 * once with Kysely for SQLite and PostgreSQL.
 */
import type { Selectable, Transaction } from 'kysely'
import type { Database, SubscriptionsTable } from '../store/schema.js'
import type { PaddleSubscription } from './paddle-event.js'
import { dateOf, storedMicros, type Micros } from './provider-time.js'

/** When the newest change applied to a subscription row happened. */
export function syncedMicros(
  row: Pick<Selectable<SubscriptionsTable>, 'synced_at' | 'synced_at_us'>,
): Micros {
  return storedMicros(row.synced_at_us, row.synced_at)
}

/**
 * True when news of `subscription` from `at` is older than what was applied to the account whose
 * subscription row is `existing`. Older than what was applied is stale, except that an ended
 * subscription's news does not date another: the end of the old one, processed late by the
 * provider, may come after the account bought the next one. Nor does a stranger's (another
 * customer's) news date the subscription of the account's own checkout, which replaces it: the
 * stranger could otherwise keep it from binding by changing theirs. An event of a subscription
 * other than the account's is also judged by its own recorded news, whatever the account's time:
 * that time may be older than the news (the next subscription was bought before the provider
 * processed the end of the previous one).
 */
export async function isStale(
  trx: Transaction<Database>,
  existing: Selectable<SubscriptionsTable> | undefined,
  subscription: PaddleSubscription,
  at: Micros,
  fromCheckout: boolean,
): Promise<boolean> {
  if (existing === undefined) return false
  const older = syncedMicros(existing) > at
  if (existing.subscription_id === subscription.id) return older
  const dated =
    existing.state !== 'free' &&
    !(
      fromCheckout &&
      existing.customer_id !== null &&
      existing.customer_id !== subscription.customerId
    )
  return (older && dated) || (await hasNewerEvent(trx, subscription.id, at))
}

/**
 * True when an event of subscription `subscriptionId` that happened after `at` was recorded;
 * events recorded before migration 024 are compared by their millisecond.
 */
async function hasNewerEvent(
  trx: Transaction<Database>,
  subscriptionId: string,
  at: Micros,
): Promise<boolean> {
  const row = await trx
    .selectFrom('billing_events')
    .select('event_id')
    .where('subscription_id', '=', subscriptionId)
    .where((eb) =>
      eb.or([
        eb('occurred_at_us', '>', at),
        eb.and([
          eb('occurred_at_us', 'is', null),
          eb('occurred_at', '>', dateOf(at).toISOString()),
        ]),
      ]),
    )
    .executeTakeFirst()
  return row !== undefined
}
