/**
 * What the app calls for billing: checkout links, cancelling and undoing it, switching cycle or
 * plan, the account's status, the payment webhook, and the timer that moves accounts to Free when
 * their paid period ends. Provider calls go through `PaddleClient` (Paddle or the dev stand-in);
 * every plan change ends in `onPlanChanged`, where the app evicts cached plans.
 */

import type { IncomingHttpHeaders } from 'node:http'
import { silentLogger } from '@burrow/protocol'
import type { Logger } from '@burrow/protocol'
import type { PlanId } from '../plans.js'
import type { Kysely } from 'kysely'
import type { Database } from '../store/schema.js'
import type { BillingConfig, BillingCycle, PaidPlanId, PriceTable } from './billing-config.js'
import { priceKey, priceTable } from './billing-config.js'
import { BILLING_ERROR_STATUS, BillingError } from './billing-error.js'
import { afterEvent, type AfterEventDeps } from './after-event.js'
import { cancelOrphans } from './orphan-subscriptions.js'
import { BillingStore, type Subscription } from './billing-store.js'
import { PaddleApiError, PaddleClient } from './paddle-client.js'
import type { PaddleSubscription } from './paddle-event.js'
import { PaddleEventError, parsePaddleEvent } from './paddle-event.js'
import { verifyPaddleSignature } from './paddle-signature.js'
import { reply, type WebhookResponse } from './webhook-response.js'
import type { Proration } from './proration.js'
import type { SubscriptionState } from './subscription-state.js'

/** Options of `new BillingService`. */
export interface BillingServiceOptions {
  readonly config: BillingConfig
  readonly db: Kysely<Database>
  /** Clock for signature timestamps, expiry and records (tests pass their own). */
  readonly now?: () => Date
  /** Called after an account's plan may have changed; errors are logged, never thrown. */
  readonly onPlanChanged?: (accountId: string) => void | Promise<void>
  readonly log?: Logger
}

/** What the billing page shows about an account. */
export interface BillingStatus {
  /** The plan in force now (Free once a paid period has ended, whatever is stored). */
  readonly plan: PlanId
  /**
   * `paid` (renews), `paid_until` (cancelled, paid limits until `endsAt`), `past_due` (payment
   * failed; paid limits until `endsAt` unless it is fixed), `free` (subscription ended), or
   * `none` (never subscribed; the plan may have been set by the operator).
   */
  readonly state: SubscriptionState | 'none'
  /** The subscription behind it, if any. */
  readonly subscription: Subscription | null
  /** When a `paid` subscription renews. */
  readonly renewsAt: Date | null
  /** When paid limits end (`paid_until`, `past_due`). */
  readonly endsAt: Date | null
}

/** Billing, for the app. */
export class BillingService {
  readonly store: BillingStore
  readonly config: BillingConfig
  readonly #client: PaddleClient
  readonly #db: Kysely<Database>
  readonly #prices: PriceTable
  readonly #now: () => Date
  readonly #onPlanChanged: ((accountId: string) => void | Promise<void>) | undefined
  readonly #log: Logger
  readonly #deps: AfterEventDeps
  #sweep: NodeJS.Timeout | null = null
  #sweeping = false

  constructor(opts: BillingServiceOptions) {
    this.config = opts.config
    this.#now = opts.now ?? (() => new Date())
    this.#prices = priceTable(opts.config.prices)
    this.store = new BillingStore(opts.db, this.#now, this.#prices)
    this.#db = opts.db
    this.#client = new PaddleClient({ apiUrl: opts.config.apiUrl, apiKey: opts.config.apiKey })
    this.#onPlanChanged = opts.onPlanChanged
    this.#log = opts.log ?? silentLogger
    this.#deps = {
      db: this.#db,
      store: this.store,
      client: this.#client,
      provider: opts.config.provider,
      log: this.#log,
      now: this.#now,
    }
  }

  /**
   * A link to the provider's hosted checkout for `plan` billed every `cycle`, carrying the
   * account id (and, with the dev provider, where to send the browser after paying). Throws
   * `BillingError` `already_subscribed` when the account has a live subscription from one of its
   * checkouts (change it instead; one that bound by its custom data alone may be a stranger's,
   * and the account's own replaces it), `provider` when the provider refuses or cannot be reached.
   */
  async checkoutUrl(
    account: { readonly id: string; readonly email: string },
    plan: PaidPlanId,
    cycle: BillingCycle,
    successUrl: string,
  ): Promise<string> {
    const status = await this.status(account.id)
    const existing = status.subscription
    if (existing !== null && status.state !== 'free' && existing.fromCheckout) {
      throw new BillingError(
        'already_subscribed',
        `account ${account.id} already has a ${existing.plan} subscription (${existing.subscriptionId}); ` +
          'change its plan or billing cycle instead of buying another',
      )
    }
    const txn = await this.#call(async () =>
      this.#client.createTransaction({
        priceId: this.config.prices[priceKey(plan, cycle)],
        accountId: account.id,
        // Never the customer of an earlier subscription: one that bound while the account was on
        // Free may be a stranger's (docs/decisions.md, "Billing"), who would get the receipts and
        // could cancel the new one from Paddle's customer portal.
        customerId: await this.#client.findOrCreateCustomer(account.email),
      }),
    )
    await this.store.recordCheckout(account.id, txn.id, this.config.provider)
    if (txn.checkoutUrl === null) {
      throw new BillingError(
        'provider',
        `Paddle made transaction ${txn.id} without a checkout link; set a default payment link ` +
          'in Paddle (Checkout settings) to a page of ours that loads Paddle.js',
      )
    }
    const url = new URL(txn.checkoutUrl)
    // Paddle's payment link is our page (it loads Paddle.js); the dev checkout reads this too.
    url.searchParams.set('success_url', successUrl)
    return url.href
  }

  /** Cancel at the end of the paid period: paid limits stay until then. */
  async cancel(accountId: string): Promise<Subscription> {
    const sub = await this.#live(accountId)
    return this.#sync(accountId, () => this.#client.cancelSubscription(sub.subscriptionId))
  }

  /** Undo a cancellation that has not taken effect yet. */
  async undoCancel(accountId: string): Promise<Subscription> {
    const sub = await this.#live(accountId)
    if (sub.state !== 'paid_until') {
      throw new BillingError('same_plan', `subscription ${sub.subscriptionId} is not cancelled`)
    }
    return this.#sync(accountId, () => this.#client.removeScheduledChange(sub.subscriptionId))
  }

  /** Bill the same plan every `cycle` from now on (prorated at once; a new period starts). */
  async switchCycle(accountId: string, cycle: BillingCycle): Promise<Subscription> {
    const sub = await this.#live(accountId)
    return this.#changeItems(accountId, sub, sub.plan, cycle)
  }

  /** Move to `plan` on the same cycle (prorated at once). */
  async changePlan(accountId: string, plan: PaidPlanId): Promise<Subscription> {
    const sub = await this.#live(accountId)
    return this.#changeItems(accountId, sub, plan, sub.cycle)
  }

  /**
   * What `changePlan(accountId, plan)` would charge or credit now, as the provider previews it
   * (nothing changes). Throws like `changePlan`.
   */
  async previewPlanChange(
    accountId: string,
    plan: PaidPlanId,
  ): Promise<{ readonly subscription: Subscription; readonly proration: Proration }> {
    const sub = await this.#live(accountId)
    this.#assertChange(sub, plan, sub.cycle)
    const proration = await this.#call(() =>
      this.#client.previewSubscriptionItems(
        sub.subscriptionId,
        this.#itemsInput(sub, plan, sub.cycle),
      ),
    )
    return { subscription: sub, proration }
  }

  /** Ask the provider for the subscription and apply what it says (when in doubt). */
  async refresh(accountId: string): Promise<Subscription | undefined> {
    const sub = await this.store.getSubscription(accountId)
    if (sub === undefined) return undefined
    return this.#sync(accountId, () => this.#client.getSubscription(sub.subscriptionId))
  }

  /** The account's billing status, for the billing page. */
  async status(accountId: string): Promise<BillingStatus> {
    const now = this.#now()
    const [account, sub] = await Promise.all([
      this.store.getAccountPlan(accountId),
      this.store.getSubscription(accountId),
    ])
    const expires = account?.planExpiresAt ?? null
    const ended = expires !== null && expires.getTime() <= now.getTime()
    const plan: PlanId = account === undefined || ended ? 'free' : account.plan
    if (sub === undefined) {
      return { plan, state: 'none', subscription: null, renewsAt: null, endsAt: null }
    }
    const state: SubscriptionState = ended || plan === 'free' ? 'free' : sub.state
    return {
      plan,
      state,
      subscription: sub,
      renewsAt: state === 'paid' ? sub.periodEndsAt : null,
      endsAt: state === 'paid_until' || state === 'past_due' ? expires : null,
    }
  }

  /**
   * Handle a payment-provider webhook: verify the signature on the raw bytes (401 when forged,
   * altered or stale), parse (400 when malformed), record and apply (200 for applied,
   * duplicate, stale, ignored or unknown account; 422 for a price burrowd does not know, so
   * Paddle retries once it is configured; 409 for an event of a subscription that may not bind
   * to the paying account it names until its `subscription.created` shows burrowd's checkout,
   * retried likewise; 500 when the database fails, likewise). Never throws.
   */
  async handleWebhook(rawBody: Buffer, headers: IncomingHttpHeaders): Promise<WebhookResponse> {
    const header = headers['paddle-signature']
    const check = verifyPaddleSignature(
      typeof header === 'string' ? header : undefined,
      rawBody,
      this.config.webhookSecrets,
      Math.floor(this.#now().getTime() / 1000),
    )
    if (!check.ok) {
      const reason = Array.isArray(header) ? 'more than one Paddle-Signature header' : check.reason
      this.#log.warn(`billing webhook refused: ${reason}`)
      return reply(401, { error: 'invalid_signature', message: reason })
    }
    let event
    try {
      event = parsePaddleEvent(rawBody)
    } catch (error) {
      const message = error instanceof PaddleEventError ? error.message : String(error)
      this.#log.warn(`billing webhook refused: ${message}`)
      return reply(400, { error: 'malformed_event', message })
    }
    try {
      const { outcome, accountId } = await this.store.applyEvent(event, this.config.provider)
      this.#log.info(
        `billing webhook ${event.eventType} ${event.eventId}: ${outcome}${accountId ? ` (account ${accountId})` : ''}`,
      )
      if (outcome === 'applied' && accountId !== null) await this.#planChanged(accountId)
      await this.#call(() => afterEvent(this.#deps, event, outcome))
      return reply(200, { ok: true, outcome })
    } catch (error) {
      if (error instanceof BillingError) {
        this.#log[error.code === 'unverified_subscription' ? 'warn' : 'error'](
          `billing webhook ${event.eventType} ${event.eventId}: ${error.message}`,
        )
        const body = { error: error.code, message: error.message }
        return reply(BILLING_ERROR_STATUS[error.code], body)
      }
      this.#log.error(
        `billing webhook ${event.eventType} ${event.eventId} could not be stored: ${(error as Error).message}`,
      )
      const message = 'the event could not be stored; retry later'
      return reply(500, { error: 'internal_error', message })
    }
  }

  /** Move accounts whose paid period ended, or (with Paddle) whose plan dev gave, to Free. */
  async expireDue(): Promise<string[]> {
    const ids = await this.store.expireDue(this.#now())
    for (const id of ids) {
      this.#log.info(`billing: account ${id} reached the end of its paid period; now on Free`)
      await this.#planChanged(id)
    }
    if (this.config.provider === 'dev') return ids
    const unpaid = await this.store.endDevSubscriptions()
    for (const id of unpaid) {
      this.#log.warn(
        `billing: account ${id} had a plan from the dev provider, where no money moves; now on Free`,
      )
      await this.#planChanged(id)
    }
    return [...ids, ...unpaid]
  }

  /**
   * Run `expireDue` every `intervalMs` (the timer does not keep the process alive). Readers
   * already apply the expiry lazily; the sweep makes the stored plan match and evicts caches.
   */
  startExpirySweep(intervalMs: number): void {
    this.stop()
    this.#sweep = setInterval(() => void this.#runSweep(), intervalMs)
    this.#sweep.unref()
  }

  /** Stop the sweep. */
  stop(): void {
    if (this.#sweep !== null) clearInterval(this.#sweep)
    this.#sweep = null
  }

  async #runSweep(): Promise<void> {
    if (this.#sweeping) return
    this.#sweeping = true
    try {
      await this.expireDue()
      await cancelOrphans(this.#deps)
    } catch (error) {
      this.#log.warn(`billing: expiry sweep failed, will retry: ${(error as Error).message}`)
    } finally {
      this.#sweeping = false
    }
  }

  async #changeItems(
    accountId: string,
    sub: Subscription,
    plan: PaidPlanId,
    cycle: BillingCycle,
  ): Promise<Subscription> {
    this.#assertChange(sub, plan, cycle)
    return this.#sync(accountId, () =>
      this.#client.updateSubscriptionItems(sub.subscriptionId, this.#itemsInput(sub, plan, cycle)),
    )
  }

  #assertChange(sub: Subscription, plan: PaidPlanId, cycle: BillingCycle): void {
    if (sub.plan === plan && sub.cycle === cycle) {
      throw new BillingError(
        'same_plan',
        `subscription ${sub.subscriptionId} is already ${plan}, ${cycle}`,
      )
    }
  }

  /** The provider request that puts `sub` on `plan` billed every `cycle`. */
  #itemsInput(sub: Subscription, plan: PaidPlanId, cycle: BillingCycle) {
    return {
      priceId: this.config.prices[priceKey(plan, cycle)],
      prorationBillingMode: 'prorated_immediately' as const,
      // Paddle will not change items while a cancellation is pending; changing plan undoes it.
      removeScheduledChange: sub.state === 'paid_until',
    }
  }

  /** The account's subscription if it can still be changed (not ended), else a BillingError. */
  async #live(accountId: string): Promise<Subscription> {
    const status = await this.status(accountId)
    const sub = status.subscription
    if (sub === null || status.state === 'free') {
      throw new BillingError('no_subscription', `account ${accountId} has no active subscription`)
    }
    if (sub.provider !== this.config.provider) {
      throw new BillingError(
        'provider_mismatch',
        `subscription ${sub.subscriptionId} was made with the ${sub.provider} billing provider, ` +
          `but burrowd now uses ${this.config.provider}; manage it there`,
      )
    }
    return sub
  }

  /** Make a provider call that returns the subscription, then apply that snapshot at once. */
  async #sync(accountId: string, call: () => Promise<PaddleSubscription>): Promise<Subscription> {
    const snapshot = await this.#call(call)
    const outcome = await this.store.applySnapshot(
      accountId,
      snapshot,
      this.config.provider,
      snapshot.updatedAtMicros ?? snapshot.updatedAt ?? this.#now(),
    )
    if (outcome === 'applied') await this.#planChanged(accountId)
    const sub = await this.store.getSubscription(accountId)
    if (sub === undefined) throw new Error(`account ${accountId} lost its subscription row`)
    return sub
  }

  async #call<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call()
    } catch (error) {
      if (error instanceof PaddleApiError) {
        throw new BillingError('provider', error.message, { cause: error })
      }
      throw error
    }
  }

  async #planChanged(accountId: string): Promise<void> {
    try {
      await this.#onPlanChanged?.(accountId)
    } catch (error) {
      this.#log.warn(
        `billing: plan-change hook failed for ${accountId}: ${(error as Error).message}`,
      )
    }
  }
}
