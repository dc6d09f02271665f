/**
 * Subscriptions that are live at the provider but give their account nothing, because another
 * subscription holds the account's plan: one the account replaced (two of its checkout links paid
 * within seconds of each other, a stranger's that bound while it was on Free), and one that may
 * not replace the account's (a stranger's naming a paid account, an earlier one resuming or
 * recovering). Each went on renewing at the provider with nothing in burrowd to cancel it. They
 * are recorded in the transaction that finds them and cancelled at the provider after it
 * commits: at the end of the period paid for, or at once when the subscription's payment is
 * failing (docs/decisions.md, "Billing"). A cancellation that fails is kept and tried again at
 * the next webhook and by the expiry sweep.
 */
import type { Kysely, Transaction } from 'kysely'
import type { Logger } from '@burrow/protocol'
import type { Database } from '../store/schema.js'
import type { BillingProvider } from './billing-config.js'
import { PaddleApiError, type PaddleClient } from './paddle-client.js'

/** What is known of a subscription when it turns out to be an orphan. */
export interface OrphanCandidate {
  readonly id: string
  /** The provider's status. */
  readonly status: string
  /** True when a cancellation is already scheduled: nothing renews. */
  readonly cancelScheduled: boolean
}

/** Orphans cancelled per call of `cancelOrphans`; the rest wait for the next one. */
const PER_CALL = 20

/**
 * Record `subscription` of `accountId` as an orphan, in `trx`, when it is live at the provider
 * (active, trialing or past due, no cancellation scheduled). Recorded once: one recorded before,
 * settled or not, stays as it is.
 */
export async function recordOrphan(
  trx: Transaction<Database>,
  provider: BillingProvider,
  accountId: string,
  subscription: OrphanCandidate,
  now: Date,
): Promise<void> {
  if (subscription.cancelScheduled) return
  if (!['active', 'trialing', 'past_due'].includes(subscription.status)) return
  await trx
    .insertInto('orphan_subscriptions')
    .values({
      provider,
      subscription_id: subscription.id,
      account_id: accountId,
      effective_from: subscription.status === 'past_due' ? 'immediately' : 'next_billing_period',
      found_at: now.toISOString(),
    })
    .onConflict((oc) => oc.columns(['provider', 'subscription_id']).doNothing())
    .execute()
}

/**
 * Cancel recorded orphans of `provider` at the provider, oldest first, up to `PER_CALL` of them,
 * and mark settled each one cancelled, and each the provider refuses to cancel (canceled
 * already, or unknown to it): one settled is not cancelled again. One the provider will not
 * change yet (409: it renews within 30 minutes), or refuses for burrowd's key (401, 403), or
 * fails on (5xx) is kept for a later call, behind the others. Throws the provider's error when
 * it cannot be reached or rate limits, keeping that orphan and the ones after it.
 */
export async function cancelOrphans(deps: {
  readonly db: Kysely<Database>
  readonly client: PaddleClient
  readonly provider: BillingProvider
  readonly log: Logger
  readonly now: () => Date
}): Promise<void> {
  const { db, client, provider, log } = deps
  const orphans = await db
    .selectFrom('orphan_subscriptions')
    .select(['subscription_id', 'account_id', 'effective_from'])
    .where('provider', '=', provider)
    .where('settled_at', 'is', null)
    .orderBy('found_at')
    .orderBy('subscription_id')
    .limit(PER_CALL)
    .execute()
  for (const orphan of orphans) {
    const id = orphan.subscription_id
    const when = orphan.effective_from === 'immediately' ? 'immediately' : 'next_billing_period'
    try {
      await client.cancelSubscription(id, when)
      log.info(
        `billing: subscription ${id} gave account ${orphan.account_id} nothing (another holds ` +
          `its plan); cancelled at Paddle${when === 'immediately' ? '' : ' at the end of its period'}`,
      )
    } catch (error) {
      if (!(error instanceof PaddleApiError) || error.status === 0 || error.status === 429) {
        throw error
      }
      // Paddle refuses any change in the 30 minutes before a renewal, and takes it after (409);
      // a key refused (401, 403) is the operator's to fix; Paddle failing (5xx) may pass. Each is
      // kept, not settled (its renewals would go on charging), and tried after the others.
      if (error.status >= 500 || [401, 403, 409].includes(error.status)) {
        log.warn(`billing: subscription ${id}, an orphan, not cancelled yet: ${error.message}`)
        await mark(deps, id, 'found_at')
        continue
      }
      log.warn(`billing: subscription ${id}, an orphan, not cancelled: ${error.message}`)
    }
    await mark(deps, id, 'settled_at')
  }
}

/** Set orphan `id`'s `column` to now: settled, or (`found_at`) moved behind the others. */
async function mark(
  deps: { readonly db: Kysely<Database>; readonly provider: BillingProvider; now(): Date },
  id: string,
  column: 'found_at' | 'settled_at',
): Promise<void> {
  await deps.db
    .updateTable('orphan_subscriptions')
    .set({ [column]: deps.now().toISOString() })
    .where('provider', '=', deps.provider)
    .where('subscription_id', '=', id)
    .execute()
}
