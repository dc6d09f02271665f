/**
 * A chargeback the bank later reverses (Paddle contested it and won). Paddle then creates a
 * `chargeback_reverse` adjustment of the same transaction and marks the chargeback `reversed`
 * (an `adjustment.created` and an `adjustment.updated`); either stands for the reversal, once.
 * The subscription the chargeback ended was canceled at Paddle then, so nothing can resume it:
 * the reversal lifts the chargeback's mark on the account (`subscriptions.charged_back_at`) and is
 * recorded as applied to the account, which its billing history shows; the owner may subscribe
 * again as any account on Free (docs/decisions.md, "Billing"). A chargeback delivered after a
 * later reversal of it is stale and ends nothing.
 */
import type { Transaction } from 'kysely'
import { lockAccount } from '../store/lock-account.js'
import type { Database } from '../store/schema.js'
import type { PaddleAdjustment, PaddleEvent } from './paddle-event.js'
import { storedMicros, type Micros } from './provider-time.js'

/** The action a reversal is recorded with, whichever of Paddle's two events told of it. */
export const REVERSAL_ACTION = 'chargeback_reverse'

/** True for an adjustment that reverses a chargeback. */
export function isReversal(adjustment: PaddleAdjustment): boolean {
  return (
    (adjustment.action === REVERSAL_ACTION && adjustment.status === 'approved') ||
    (adjustment.action === 'chargeback' && adjustment.status === 'reversed')
  )
}

/** The action an adjustment event is recorded with (`billing_events.action`). */
export function recordedAction(adjustment: PaddleAdjustment | undefined): string | null {
  if (adjustment === undefined) return null
  return isReversal(adjustment) ? REVERSAL_ACTION : adjustment.action
}

/** Apply a reversal (`isReversal`); returns what became of it and the account it concerned. */
export async function applyReversal(
  trx: Transaction<Database>,
  event: PaddleEvent,
  now: Date,
): Promise<{ outcome: 'applied' | 'ignored'; accountId: string | null }> {
  const adjustment = event.adjustment!
  const subscriptionId = adjustment.subscriptionId
  if (subscriptionId === null) return { outcome: 'ignored', accountId: null }
  // The account the subscription is bound to, or, once the account has replaced it, the one
  // its chargeback ended.
  const bound = await trx
    .selectFrom('subscriptions')
    .select('account_id')
    .where('subscription_id', '=', subscriptionId)
    .executeTakeFirst()
  const accountId = bound?.account_id ?? (await latestChargeback(trx, adjustment))?.account_id
  if (accountId === undefined || accountId === null) return { outcome: 'ignored', accountId: null }
  if ((await lockAccount(trx, accountId, false)) === undefined) {
    return { outcome: 'ignored', accountId: null }
  }
  // Read under the account's lock, where chargebacks are applied.
  const charge = await latestChargeback(trx, adjustment)
  // Nothing charged back yet (the chargeback, delivered later, is then stale), or reversed by the
  // other of Paddle's two events already: recorded, nothing to lift.
  if (charge === undefined) return { outcome: 'ignored', accountId }
  const chargedAt = storedMicros(charge.occurred_at_us, charge.occurred_at)
  if (await reversalAfter(trx, adjustment, chargedAt, 'applied')) {
    return { outcome: 'ignored', accountId }
  }
  await trx
    .updateTable('subscriptions')
    .set({ charged_back_at: null, updated_at: now.toISOString() })
    .where('account_id', '=', accountId)
    .where('subscription_id', '=', subscriptionId)
    .execute()
  return { outcome: 'applied', accountId }
}

/**
 * True when a chargeback of subscription `subscriptionId` was applied (it ended the subscription,
 * which Paddle then canceled), whether or not it was reversed since.
 */
export async function wasChargedBack(
  trx: Transaction<Database>,
  subscriptionId: string,
): Promise<boolean> {
  const row = await trx
    .selectFrom('billing_events')
    .select('event_id')
    .where('subscription_id', '=', subscriptionId)
    .where('type', 'like', 'adjustment.%')
    .where('outcome', '=', 'applied')
    // Chargebacks were the only adjustments applied before migration 025 recorded actions.
    .where((eb) => eb.or([eb('action', '=', 'chargeback'), eb('action', 'is', null)]))
    .executeTakeFirst()
  return row !== undefined
}

/**
 * True when a reversal of the chargeback `adjustment` that happened after `at` was recorded
 * (with `outcome`, or any): the chargeback, delivered late, ends nothing.
 */
export async function reversalAfter(
  trx: Transaction<Database>,
  adjustment: PaddleAdjustment,
  at: Micros,
  outcome?: 'applied',
): Promise<boolean> {
  let query = sameTransaction(trx, adjustment)
    .select(['occurred_at', 'occurred_at_us'])
    .where('action', '=', REVERSAL_ACTION)
  if (outcome !== undefined) query = query.where('outcome', '=', outcome)
  const rows = await query.execute()
  return rows.some((r) => storedMicros(r.occurred_at_us, r.occurred_at) >= at)
}

/** The newest chargeback of the transaction `adjustment` adjusts that was applied, if any. */
async function latestChargeback(trx: Transaction<Database>, adjustment: PaddleAdjustment) {
  const rows = await sameTransaction(trx, adjustment)
    .select(['account_id', 'occurred_at', 'occurred_at_us'])
    .where('type', 'like', 'adjustment.%')
    .where('outcome', '=', 'applied')
    // Chargebacks were the only adjustments applied before migration 025 recorded actions.
    .where((eb) => eb.or([eb('action', '=', 'chargeback'), eb('action', 'is', null)]))
    .execute()
  const micros = (r: (typeof rows)[number]) => storedMicros(r.occurred_at_us, r.occurred_at)
  return rows.sort((a, b) => micros(b) - micros(a))[0]
}

/**
 * The recorded events of the subscription `adjustment` is about and of its transaction: a
 * chargeback and its reversal name the same one; a record without a transaction matches any.
 */
function sameTransaction(trx: Transaction<Database>, adjustment: PaddleAdjustment) {
  const query = trx
    .selectFrom('billing_events')
    .where('subscription_id', '=', adjustment.subscriptionId)
  const txn = adjustment.transactionId
  if (txn === undefined || txn === null) return query
  return query.where((eb) =>
    eb.or([eb('transaction_id', '=', txn), eb('transaction_id', 'is', null)]),
  )
}
