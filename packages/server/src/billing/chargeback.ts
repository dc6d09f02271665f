/**
 * A chargeback ends the plan it paid for. A customer who disputes a payment with their bank gets
 * the money back (Paddle records an approved `chargeback` adjustment), but Paddle leaves the
 * subscription as it was: without this the account kept its paid plan to the end of the period
 * it no longer paid for (a year of Scale, on the annual cycle). The account goes to Free at once;
 * the caller then cancels the subscription at Paddle, so that it does not renew either. The
 * subscription is marked charged back (`charged_back_at`) until a reversal lifts the mark.
 */
import type { Transaction } from 'kysely'
import { lockAccount } from '../store/lock-account.js'
import type { Database } from '../store/schema.js'
import type { BillingProvider } from './billing-config.js'
import type { BillingStore } from './billing-store.js'
import type { PaddleClient } from './paddle-client.js'
import type { PaddleEvent } from './paddle-event.js'
import { syncedMicros } from './event-order.js'
import { dateOf } from './provider-time.js'
import { applyReversal, isReversal, reversalAfter } from './chargeback-reversal.js'

/**
 * Apply an `adjustment.*` event (a chargeback, or its reversal: `chargeback-reversal.ts`);
 * returns what became of it and the account it concerned.
 */
export async function applyAdjustment(
  trx: Transaction<Database>,
  event: PaddleEvent,
  now: Date,
): Promise<{ outcome: 'applied' | 'ignored' | 'stale'; accountId: string | null }> {
  const adjustment = event.adjustment
  const ignored = { outcome: 'ignored' as const, accountId: null }
  if (adjustment !== undefined && isReversal(adjustment)) return applyReversal(trx, event, now)
  if (
    adjustment === undefined ||
    adjustment.action !== 'chargeback' ||
    adjustment.status !== 'approved' ||
    adjustment.subscriptionId === null
  ) {
    return ignored
  }
  const bound = await trx
    .selectFrom('subscriptions')
    .select('account_id')
    .where('subscription_id', '=', adjustment.subscriptionId)
    .executeTakeFirst()
  if (bound === undefined) return ignored
  if ((await lockAccount(trx, bound.account_id, false)) === undefined) return ignored
  const sub = await trx
    .selectFrom('subscriptions')
    .select(['synced_at', 'synced_at_us', 'state'])
    .where('account_id', '=', bound.account_id)
    .where('subscription_id', '=', adjustment.subscriptionId)
    .executeTakeFirst()
  // Replaced meanwhile by another subscription of the account, or already ended: nothing to end.
  if (sub === undefined || sub.state === 'free') return ignored
  // Reversed already: the reversal, delivered first, happened after it.
  if (await reversalAfter(trx, adjustment, event.occurredAtMicros)) {
    return { outcome: 'stale', accountId: bound.account_id }
  }
  // Events of the subscription from before the chargeback are stale from now on.
  const synced = Math.max(syncedMicros(sub), event.occurredAtMicros)
  await trx
    .updateTable('subscriptions')
    .set({
      state: 'free',
      cancels_at: null,
      synced_at: dateOf(synced).toISOString(),
      synced_at_us: synced,
      charged_back_at: event.occurredAt.toISOString(),
      updated_at: now.toISOString(),
    })
    .where('account_id', '=', bound.account_id)
    .execute()
  await trx
    .updateTable('accounts')
    .set({ plan: 'free', plan_expires_at: null })
    .where('id', '=', bound.account_id)
    .execute()
  return { outcome: 'applied', accountId: bound.account_id }
}

/**
 * After `event` was recorded with `outcome`: cancel at Paddle, now, the subscription a chargeback
 * ended. Throws when Paddle cannot be reached, so that the webhook fails and Paddle delivers it
 * again; the delivery again finds the event recorded (a duplicate) as applied, and cancels then,
 * unless Paddle shows the subscription canceled already. Before, a cancellation that failed once
 * was never tried again: the subscription renewed, and its next event gave the plan back.
 */
export async function cancelCharged(
  store: BillingStore,
  client: PaddleClient,
  provider: BillingProvider,
  event: PaddleEvent,
  outcome: string,
): Promise<void> {
  const adjustment = event.adjustment
  // Only an approved chargeback ended a plan (a reversal is recorded the same way).
  if (adjustment?.action !== 'chargeback' || adjustment.status !== 'approved') return
  const id = adjustment.subscriptionId
  if (!id) return
  if (outcome === 'duplicate') {
    if ((await store.eventOutcome(provider, event.eventId)) !== 'applied') return
    if ((await client.getSubscription(id)).status === 'canceled') return
  } else if (outcome !== 'applied') return
  await client.cancelSubscription(id, 'immediately')
}
