/**
 * Billing's queries: applying a provider event to an account in one transaction (recorded once
 * by event id, applied only if newer than what was applied before), the account's subscription,
 * and the sweep that moves accounts whose paid period ended to Free. Written once with Kysely
 * for SQLite and PostgreSQL.
 */

import type { PlanId } from '../plans.js'
import type { Kysely, Selectable, Transaction } from 'kysely'
import type { BillingCycle, BillingProvider, PaidPlanId, PriceTable } from './billing-config.js'
import { lockAccount } from '../store/lock-account.js'
import type { Database, SubscriptionsTable } from '../store/schema.js'
import { applyAdjustment } from './chargeback.js'
import { recordedAction, wasChargedBack } from './chargeback-reversal.js'
import { readBillingHistory, type BillingHistoryEntry } from './billing-history.js'
import { endDevSubscriptions } from './dev-subscriptions.js'
import { isPlanEvent } from './paddle-event.js'
import { isStale } from './event-order.js'
import { dateOf, microsOf, type Micros } from './provider-time.js'
import { findAccount, isPaidNow } from './subscription-binding.js'

export { UNVERIFIED_WAIT_MS } from './subscription-binding.js'
import type { PaddleEvent, PaddleSubscription } from './paddle-event.js'
import { decidePlan } from './subscription-state.js'
import { recordOrphan, type OrphanCandidate } from './orphan-subscriptions.js'
import type { SubscriptionState } from './subscription-state.js'

/** What became of an event. */
export type ApplyOutcome =
  /** The account's plan and subscription were updated from it. */
  | 'applied'
  /** Already processed (same provider and event id): nothing changed. */
  | 'duplicate'
  /**
   * Older than the last event applied to the account, or a chargeback a later reversal undid:
   * recorded, nothing changed.
   */
  | 'stale'
  /** Not about a plan (e.g. `transaction.completed`), or about a subscription the account replaced. */
  | 'ignored'
  /** Names no account burrowd has (deleted, or not ours): recorded, nothing changed. */
  | 'unknown_account'

/** An outcome and the account it concerned, if one was found. */
export interface ApplyResult {
  readonly outcome: ApplyOutcome
  readonly accountId: string | null
}

/** An account's subscription at the provider, as last synchronised. */
export interface Subscription {
  readonly accountId: string
  readonly provider: BillingProvider
  readonly subscriptionId: string
  readonly customerId: string | null
  readonly plan: PaidPlanId
  readonly cycle: BillingCycle
  /** The provider's status (`active`, `trialing`, `past_due`, `paused`, `canceled`). */
  readonly status: string
  readonly state: SubscriptionState
  readonly periodEndsAt: Date | null
  /** When a scheduled cancellation (or pause) ends the paid plan. */
  readonly cancelsAt: Date | null
  /** When an approved chargeback ended it (its plan and the subscription), until reversed. */
  readonly chargedBackAt: Date | null
  /** False when only its custom data named the account (it bound on Free; maybe a stranger's). */
  readonly fromCheckout: boolean
  /** Occurrence time of the newest change applied. */
  readonly syncedAt: Date
  readonly updatedAt: Date
}

/** The account's plan columns as stored. */
export interface AccountPlan {
  readonly plan: PlanId
  readonly planExpiresAt: Date | null
}

/** Billing's queries; one instance per database. */
export class BillingStore {
  readonly #db: Kysely<Database>
  readonly #now: () => Date
  readonly #prices: PriceTable

  /** `prices` maps the provider's price ids to plans (`priceTable(config.prices)`). */
  constructor(db: Kysely<Database>, now: () => Date, prices: PriceTable) {
    this.#db = db
    this.#now = now
    this.#prices = prices
  }

  /**
   * Record `event` and apply it to its account, all in one transaction. An event id seen before
   * is a `duplicate` and changes nothing. A `subscription.*` event older than the last change
   * applied to the account is `stale`. Throws `BillingError` `unknown_price` (and records
   * nothing, so the provider's retry succeeds once the prices are configured).
   */
  async applyEvent(event: PaddleEvent, provider: BillingProvider): Promise<ApplyResult> {
    return this.#db.transaction().execute(async (trx) => {
      // Claiming the event id first makes a concurrent duplicate wait here for this transaction,
      // then find the row; on SQLite it takes the write lock before anything is read.
      const claimed = await trx
        .insertInto('billing_events')
        .values({
          provider,
          event_id: event.eventId,
          type: event.eventType,
          occurred_at: event.occurredAt.toISOString(),
          occurred_at_us: event.occurredAtMicros,
          received_at: this.#now().toISOString(),
          account_id: null,
          subscription_id: event.subscription?.id ?? event.adjustment?.subscriptionId ?? null,
          action: recordedAction(event.adjustment),
          transaction_id: event.adjustment?.transactionId ?? null,
          outcome: 'pending',
        })
        .onConflict((oc) => oc.columns(['provider', 'event_id']).doNothing())
        .returning('event_id')
        .executeTakeFirst()
      if (claimed === undefined) return { outcome: 'duplicate', accountId: null }

      const now = this.#now()
      let result: ApplyResult = { outcome: 'ignored', accountId: null }
      if (event.adjustment !== undefined) result = await applyAdjustment(trx, event, now)
      else if (event.subscription !== undefined && isPlanEvent(event.eventType)) {
        const target = await findAccount(trx, event, provider, now)
        if (target === null) result = { outcome: 'unknown_account', accountId: null }
        else if (!target.bindable) {
          result = { outcome: 'ignored', accountId: target.accountId }
          // Not one whose creation never came: that may be the account's own, delivered late.
          if (target.unverified !== true) {
            const orphan = candidate(event.subscription)
            await recordOrphan(trx, provider, target.accountId, orphan, now)
          }
        } else {
          result = {
            outcome: await this.#apply(
              trx,
              target.accountId,
              event.subscription,
              provider,
              event.occurredAtMicros,
              target.fromCheckout === true,
            ),
            accountId: target.accountId,
          }
        }
      }
      await trx
        .updateTable('billing_events')
        .set({ outcome: result.outcome, account_id: result.accountId })
        .where('provider', '=', provider)
        .where('event_id', '=', event.eventId)
        .execute()
      return result
    })
  }

  /** The outcome recorded for event `eventId` of `provider`, or undefined for none recorded. */
  async eventOutcome(provider: BillingProvider, eventId: string): Promise<string | undefined> {
    const row = await this.#db
      .selectFrom('billing_events')
      .select('outcome')
      .where('provider', '=', provider)
      .where('event_id', '=', eventId)
      .executeTakeFirst()
    return row?.outcome
  }

  /**
   * Apply a subscription as the provider's API returned it at `at` (after a cancel or plan change,
   * or a refresh), under the same ordering rule as events but without an event record. `at` is a
   * `Date` (the start of its millisecond) or microseconds since the Unix epoch.
   */
  async applySnapshot(
    accountId: string,
    subscription: PaddleSubscription,
    provider: BillingProvider,
    at: Date | Micros,
  ): Promise<ApplyOutcome> {
    const micros = typeof at === 'number' ? at : microsOf(at)
    return this.#db
      .transaction()
      .execute((trx) => this.#apply(trx, accountId, subscription, provider, micros))
  }

  async #apply(
    trx: Transaction<Database>,
    accountId: string,
    subscription: PaddleSubscription,
    provider: BillingProvider,
    at: Micros,
    fromCheckout = false,
  ): Promise<ApplyOutcome> {
    const account = await lockAccount(trx, accountId, false)
    if (account === undefined) return 'unknown_account'
    const existing = await trx
      .selectFrom('subscriptions')
      .selectAll()
      .where('account_id', '=', accountId)
      .executeTakeFirst()
    // Its creation, delivered after news of it that bound it on Free, shows it is the account's.
    if (fromCheckout && existing?.subscription_id === subscription.id && !existing.from_checkout) {
      await trx
        .updateTable('subscriptions')
        .set({ from_checkout: 1 })
        .where('account_id', '=', accountId)
        .execute()
    }
    if (await isStale(trx, existing, subscription, at, fromCheckout)) return 'stale'
    const decision = decidePlan(subscription, this.#prices, dateOf(at))
    const now = this.#now()
    // Only the account's own checkout replaces another subscription while the account has a paid
    // plan: the custom data naming the account is the buyer's to write (Paddle.js sets it in an
    // open checkout, and typing the owner's email gives the owner's customer id), and a
    // subscription the account replaced may resume or recover later. Either would otherwise take
    // the plan from the one the billing page manages, which goes on renewing (docs/decisions.md,
    // "Billing"). One from the account's checkout replaces what bound while it was on Free.
    if (
      !fromCheckout &&
      existing !== undefined &&
      existing.subscription_id !== subscription.id &&
      isPaidNow(account, now)
    ) {
      await recordOrphan(trx, provider, accountId, candidate(subscription), now)
      return 'ignored'
    }
    // A subscription a chargeback ended is over whatever its later news says (an update sent
    // before Paddle processed the cancellation), its chargeback reversed or not: only a new one
    // gives a plan (a reversal lifts the mark, but Paddle canceled the subscription).
    if (
      existing?.subscription_id === subscription.id &&
      decision.state !== 'free' &&
      (existing.charged_back_at !== null || (await wasChargedBack(trx, subscription.id)))
    ) {
      return 'ignored'
    }
    // The end of a subscription the account has since replaced must not end the new one.
    if (
      existing !== undefined &&
      existing.subscription_id !== subscription.id &&
      decision.state === 'free' &&
      isPaidNow(account, now)
    ) {
      return 'ignored'
    }

    const row = {
      provider,
      subscription_id: subscription.id,
      customer_id: subscription.customerId,
      plan: decision.subscribedPlan,
      cycle: decision.cycle,
      status: subscription.status,
      state: decision.state,
      period_ends_at: iso(subscription.currentPeriodEndsAt),
      cancels_at:
        decision.state === 'paid_until' ? iso(subscription.scheduledChange?.effectiveAt) : null,
      synced_at: dateOf(at).toISOString(),
      synced_at_us: at,
      updated_at: now.toISOString(),
      // A chargeback's mark and where it came from belong to the subscription, not its successor.
      ...(existing?.subscription_id === subscription.id
        ? {}
        : { charged_back_at: null, from_checkout: fromCheckout ? 1 : 0 }),
    }
    await trx
      .insertInto('subscriptions')
      .values({ account_id: accountId, ...row })
      .onConflict((oc) => oc.column('account_id').doUpdateSet(row))
      .execute()

    // The subscription this one replaces gives the account nothing from now on.
    if (existing !== undefined && existing.subscription_id !== subscription.id) {
      if (existing.provider === provider && existing.charged_back_at === null) {
        const replaced = {
          id: existing.subscription_id,
          status: existing.status,
          cancelScheduled: existing.cancels_at !== null,
        }
        await recordOrphan(trx, provider, accountId, replaced, now)
      }
    }
    // An end already past (a late event) is applied at once rather than left to the sweep.
    const ended = decision.planExpiresAt !== null && decision.planExpiresAt <= now
    await trx
      .updateTable('accounts')
      .set({
        plan: ended ? 'free' : decision.plan,
        plan_expires_at: ended ? null : iso(decision.planExpiresAt),
      })
      .where('id', '=', accountId)
      .execute()
    return 'applied'
  }

  /**
   * Remember that burrowd made checkout transaction `transactionId` for account `accountId`: the
   * subscription its payment creates binds to that account (`findAccount`).
   */
  async recordCheckout(
    accountId: string,
    transactionId: string,
    provider: BillingProvider,
  ): Promise<void> {
    await this.#db
      .insertInto('checkout_transactions')
      .values({
        provider,
        transaction_id: transactionId,
        account_id: accountId,
        created_at: this.#now().toISOString(),
      })
      .onConflict((oc) => oc.columns(['provider', 'transaction_id']).doNothing())
      .execute()
  }

  /** The account's subscription, if it ever had one. */
  async getSubscription(accountId: string): Promise<Subscription | undefined> {
    const row = await this.#db
      .selectFrom('subscriptions')
      .selectAll()
      .where('account_id', '=', accountId)
      .executeTakeFirst()
    return row && toSubscription(row)
  }

  /** The account's billing history, newest first (`billing-history.ts`). */
  async history(accountId: string): Promise<BillingHistoryEntry[]> {
    return readBillingHistory(this.#db, accountId)
  }

  /** The account's stored plan and its expiry, if the account exists. */
  async getAccountPlan(accountId: string): Promise<AccountPlan | undefined> {
    const row = await this.#db
      .selectFrom('accounts')
      .select(['plan', 'plan_expires_at'])
      .where('id', '=', accountId)
      .executeTakeFirst()
    return row && { plan: row.plan as PlanId, planExpiresAt: toDate(row.plan_expires_at) }
  }

  /**
   * Move every account whose `plan_expires_at` is at or before `now` to Free (clearing the
   * expiry), so the stored plan matches the one in force; return the ids of the accounts moved.
   * Readers already treat such accounts as Free; this keeps the rows honest and lets the caller
   * evict cached plans.
   */
  async expireDue(now: Date = this.#now()): Promise<string[]> {
    const rows = await this.#db
      .updateTable('accounts')
      .set({ plan: 'free', plan_expires_at: null })
      .where('plan_expires_at', 'is not', null)
      .where('plan_expires_at', '<=', now.toISOString())
      .returning('id')
      .execute()
    return rows.map((r) => r.id)
  }

  /** End the dev provider's subscriptions that still give a plan (`dev-subscriptions.ts`). */
  async endDevSubscriptions(): Promise<string[]> {
    return endDevSubscriptions(this.#db, this.#now)
  }
}

function iso(date: Date | null | undefined): string | null {
  return date ? date.toISOString() : null
}

function toDate(value: string | null): Date | null {
  return value === null ? null : new Date(value)
}

function toSubscription(row: Selectable<SubscriptionsTable>): Subscription {
  return {
    accountId: row.account_id,
    provider: row.provider as BillingProvider,
    subscriptionId: row.subscription_id,
    customerId: row.customer_id,
    plan: row.plan as PaidPlanId,
    cycle: row.cycle as BillingCycle,
    status: row.status,
    state: row.state as SubscriptionState,
    periodEndsAt: toDate(row.period_ends_at),
    cancelsAt: toDate(row.cancels_at),
    chargedBackAt: toDate(row.charged_back_at),
    fromCheckout: row.from_checkout !== 0,
    syncedAt: new Date(row.synced_at),
    updatedAt: new Date(row.updated_at),
  }
}

/** What an orphan's record needs of a subscription as the provider sent it. */
function candidate(subscription: PaddleSubscription): OrphanCandidate {
  const cancelScheduled = subscription.scheduledChange?.action === 'cancel'
  return { id: subscription.id, status: subscription.status, cancelScheduled }
}
