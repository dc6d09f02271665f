/**
 * Checkout links an account opened and did not pay are voided once another of its checkouts made
 * the subscription bound to it. Paddle keeps a checkout's transaction payable, so a link left in
 * a tab or the browser's history made, when paid later, a second subscription; `subscription.created`
 * names burrowd's checkout, so that one replaced the subscription the account had paid for, which
 * went on renewing at Paddle while the billing page could no longer cancel it (and an annual Scale
 * gave way to the monthly Pro of a link opened first). docs/decisions.md, "Billing".
 */
import type { Kysely } from 'kysely'
import type { Logger } from '@burrow/protocol'
import type { Database } from '../store/schema.js'
import type { BillingProvider } from './billing-config.js'
import { PaddleApiError, type PaddleClient } from './paddle-client.js'
import type { PaddleEvent } from './paddle-event.js'

/**
 * After `event` was handled: when it is the `subscription.created` of a checkout burrowd made and
 * that subscription is bound to the checkout's account, void the account's other checkouts at the
 * provider and forget them. Run on every delivery, a duplicate too: a void that failed (the
 * provider unreachable) throws `PaddleApiError`, the webhook fails, and the provider's next
 * delivery voids what is left. A checkout the provider will not void (paid already, or voided) is
 * forgotten: if paid, its subscription then binds only as one a stranger's checkout made would.
 */
export async function voidSupersededCheckouts(
  db: Kysely<Database>,
  client: PaddleClient,
  provider: BillingProvider,
  event: PaddleEvent,
  log: Logger,
): Promise<void> {
  const made = event.createdFrom
  if (event.eventType !== 'subscription.created' || !made || event.subscription === undefined) {
    return
  }
  const checkout = await db
    .selectFrom('checkout_transactions')
    .select('account_id')
    .where('provider', '=', provider)
    .where('transaction_id', '=', made)
    .executeTakeFirst()
  if (checkout === undefined) return
  const accountId = checkout.account_id
  const bound = await db
    .selectFrom('subscriptions')
    .select('subscription_id')
    .where('account_id', '=', accountId)
    .executeTakeFirst()
  if (bound?.subscription_id !== event.subscription.id) return
  const others = await db
    .selectFrom('checkout_transactions')
    .select('transaction_id')
    .where('provider', '=', provider)
    .where('account_id', '=', accountId)
    .where('transaction_id', '!=', made)
    .execute()
  for (const { transaction_id: id } of others) {
    try {
      await client.cancelTransaction(id)
      log.info(`billing: checkout ${id} of account ${accountId} voided (superseded by ${made})`)
    } catch (error) {
      // Unreachable, rate limited or failing: keep it, to void at the next delivery.
      if (!(error instanceof PaddleApiError) || error.status === 0 || error.status === 429) {
        throw error
      }
      if (error.status >= 500) throw error
      log.info(`billing: checkout ${id} of account ${accountId} not voided: ${error.message}`)
    }
    await db
      .deleteFrom('checkout_transactions')
      .where('provider', '=', provider)
      .where('transaction_id', '=', id)
      .execute()
  }
}
