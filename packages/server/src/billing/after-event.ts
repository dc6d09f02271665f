/**
 * What a handled webhook event asks of the provider once its transaction has committed: cancel a
 * charged-back subscription, void the checkouts a new subscription superseded, cancel the
 * subscriptions that give their account nothing. Each runs on every delivery, a duplicate too, so
 * a call that failed (the provider unreachable) is made again at the provider's next delivery;
 * the orphans' cancellations are also retried by the expiry sweep, and do not fail the webhook.
 */
import type { Kysely } from 'kysely'
import type { Logger } from '@burrow/protocol'
import type { Database } from '../store/schema.js'
import type { BillingProvider } from './billing-config.js'
import type { BillingStore } from './billing-store.js'
import { cancelCharged } from './chargeback.js'
import { cancelOrphans } from './orphan-subscriptions.js'
import type { PaddleClient } from './paddle-client.js'
import type { PaddleEvent } from './paddle-event.js'
import { voidSupersededCheckouts } from './superseded-checkouts.js'

/** What the calls need. */
export interface AfterEventDeps {
  readonly db: Kysely<Database>
  readonly store: BillingStore
  readonly client: PaddleClient
  readonly provider: BillingProvider
  readonly log: Logger
  readonly now: () => Date
}

/** Make the provider calls `event`, handled with `outcome`, asks for; throws what they throw. */
export async function afterEvent(
  deps: AfterEventDeps,
  event: PaddleEvent,
  outcome: string,
): Promise<void> {
  const { db, store, client, provider, log } = deps
  // A chargeback ended the plan (chargeback.ts); the subscription must not renew either.
  await cancelCharged(store, client, provider, event, outcome)
  // Once a checkout made the account's subscription, its other checkouts are void.
  await voidSupersededCheckouts(db, client, provider, event, log)
  // Not the webhook's to fail: the event is applied, and the expiry sweep tries again each minute.
  await cancelOrphans(deps).catch((error: Error) =>
    log.warn(`billing: orphan subscriptions not cancelled, will retry: ${error.message}`),
  )
}
