/**
 * Which account a Paddle subscription event is about, and whether its subscription may be
 * applied to it (billing-store.ts applies it): the custom data naming an account is the buyer's
 * to write, so a new subscription binds to an account on a paid plan only through a checkout
 * transaction burrowd made for it (docs/decisions.md, "Billing").
 */
import type { Transaction } from 'kysely'
import { lockAccount, type LockedAccount } from '../store/lock-account.js'
import type { Database } from '../store/schema.js'
import type { BillingProvider } from './billing-config.js'
import { BillingError } from './billing-error.js'
import type { PaddleEvent } from './paddle-event.js'

/**
 * How long after it happened an event of a subscription not yet bound to the paying account it
 * names is sent back for a retry (409), waiting for the subscription's creation to arrive:
 * Paddle does not promise order, but delivers a creation within minutes.
 */
export const UNVERIFIED_WAIT_MS = 60 * 60_000

/** The account an event is about, and whether its subscription may be applied to it. */
interface EventTarget {
  readonly accountId: string
  readonly bindable: boolean
  /** True when the subscription comes from a checkout burrowd made for the account. */
  readonly fromCheckout?: boolean
  /**
   * True when it is not bindable only because its creation was never seen: it may yet be the
   * account's own, its creation delivered late, so it is not an orphan to cancel.
   */
  readonly unverified?: boolean
}

/**
 * The account a subscription event is about. A subscription already bound to an account stays
 * with it (the first binding wins, so custom data edited at the provider cannot move it). A new
 * one binds to the account whose checkout transaction burrowd made, as `subscription.created`
 * names it; failing that, to the account its custom data names, unless that account is on a paid
 * plan now: the custom data is the buyer's to write (Paddle.js can set it in a checkout of their
 * own), so anyone knowing an account's id could otherwise bind a subscription of theirs to it
 * and, by cancelling it, end a plan the operator granted. Such a `subscription.created` is
 * recorded and ignored, and so are the later events of that subscription; an event that comes
 * before its subscription's `subscription.created` throws `BillingError`
 * `unverified_subscription` and is not recorded, so the provider sends it again, after the
 * `subscription.created` it overtook has bound the subscription or been refused; past
 * `UNVERIFIED_WAIT_MS` after it happened, it is ignored instead (and not cancelled as an orphan:
 * its creation may yet come and show it the account's own).
 * Null when no account of ours is named.
 */
export async function findAccount(
  trx: Transaction<Database>,
  event: PaddleEvent,
  provider: BillingProvider,
  now: Date,
): Promise<EventTarget | null> {
  const subscription = event.subscription!
  const bound = await boundAccount(trx, subscription.id)
  const checkout = event.createdFrom
    ? await trx
        .selectFrom('checkout_transactions')
        .select('account_id')
        .where('provider', '=', provider)
        .where('transaction_id', '=', event.createdFrom)
        .executeTakeFirst()
    : undefined
  // Bound by news that overtook its creation: the creation still shows where it came from.
  if (bound !== undefined) {
    return { accountId: bound, bindable: true, fromCheckout: checkout?.account_id === bound }
  }
  if (checkout !== undefined) {
    return { accountId: checkout.account_id, bindable: true, fromCheckout: true }
  }
  const named = subscription.customData.account_id
  if (named === undefined) return null
  const account = await lockAccount(trx, named, false)
  if (account === undefined) return null
  // Its subscription.created may have bound it while this event waited for the account's lock.
  const boundSince = await boundAccount(trx, subscription.id)
  if (boundSince !== undefined) return { accountId: boundSince, bindable: true }
  if (!isPaidNow(account, now)) return { accountId: account.id, bindable: true }
  if (event.eventType === 'subscription.created') return { accountId: account.id, bindable: false }
  // How its creation went: refused (a stranger's), or applied (a subscription the account had
  // and has since replaced: `#apply` knows what to do with its late events).
  const created = await trx
    .selectFrom('billing_events')
    .select('outcome')
    .where('provider', '=', provider)
    .where('subscription_id', '=', subscription.id)
    .where('type', '=', 'subscription.created')
    .where('outcome', 'in', ['applied', 'ignored'])
    .executeTakeFirst()
  if (created !== undefined)
    return { accountId: account.id, bindable: created.outcome === 'applied' }
  // Never seen created, and long after it happened (a subscription from before burrowd recorded
  // the subscriptions of events, or a stranger's whose creation never came): not waited for.
  if (now.getTime() - event.occurredAt.getTime() > UNVERIFIED_WAIT_MS) {
    return { accountId: account.id, bindable: false, unverified: true }
  }
  throw new BillingError(
    'unverified_subscription',
    `subscription ${subscription.id} names account ${account.id}, which is on a paid plan, but ` +
      'is not bound to it: its subscription.created must show it came from a checkout burrowd ' +
      'made for the account first; send this event again later',
  )
}

/** The account subscription `subscriptionId` is bound to, if any. */
async function boundAccount(
  trx: Transaction<Database>,
  subscriptionId: string,
): Promise<string | undefined> {
  const row = await trx
    .selectFrom('subscriptions')
    .select('account_id')
    .where('subscription_id', '=', subscriptionId)
    .executeTakeFirst()
  return row?.account_id
}

export function isPaidNow(account: LockedAccount, now: Date): boolean {
  if (account.plan === 'free') return false
  return account.plan_expires_at === null || new Date(account.plan_expires_at) > now
}
