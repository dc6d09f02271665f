/**
 * A stand-in for Paddle's servers, speaking the subset of Paddle Billing's API that
 * `PaddleClient` uses: the `dev` billing provider (burrowd mounts it at `/dev/paddle` when no
 * Paddle keys are configured) and the tests' "Paddle". It keeps customers, transactions and
 * subscriptions in memory, checks the bearer API key, serves a hosted checkout page where "Pay"
 * (no card fields, no money) completes the transaction and creates the subscription, and sends
 * the signed webhooks Paddle would. The test controls (`paymentFailed`, `endPeriod`, `resend`,
 * `holdWebhooks`…) are methods, not HTTP routes, so nothing outside the process can reach them.
 *
 * Routes, below `prefix`:
 *   GET  /customers?email=…             POST /customers
 *   POST /transactions                  GET  /transactions/{id}
 *   PATCH /transactions/{id}            (status canceled: void an unpaid checkout)
 *   GET  /subscriptions/{id}            PATCH /subscriptions/{id}
 *   POST /subscriptions/{id}/cancel
 *   GET  /checkout?_ptxn=txn_…[&success_url=…]   (the hosted checkout page; no API key)
 *   POST /checkout/pay                             (its form; redirects to the success URL)
 */

import type { Proration } from './proration.js'
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { silentLogger } from '@burrow/protocol'
import type { Logger } from '@burrow/protocol'
import type { PriceKey } from './billing-config.js'
import { DEV_PRICES } from './billing-config.js'
import { PaddleWebhookSender } from './paddle-webhook-sender.js'
import type { SentWebhook } from './paddle-webhook-sender.js'
import { serveCheckoutPage, servePayForm } from './stand-in-checkout-page.js'
import {
  addCycle,
  standInPrices,
  subscriptionEntity,
  transactionEntity,
} from './stand-in-entities.js'
import type {
  StandInCustomer,
  StandInPrice,
  StandInSubscription,
  StandInTransaction,
} from './stand-in-entities.js'
import { sendApiError, serveApi, StandInError } from './stand-in-api.js'

/** Options of `new PaddleStandIn`. */
export interface PaddleStandInOptions {
  /** The API key callers must send as `Authorization: Bearer …`. */
  readonly apiKey: string
  /** The notification destination's secret that webhooks are signed with. */
  readonly webhookSecret: string
  /** Where webhooks are POSTed, e.g. `http://127.0.0.1:7100/webhooks/paddle`. */
  readonly notificationUrl: string
  /** Price ids sold (default `DEV_PRICES`); amounts come from the plan catalog. */
  readonly prices?: Readonly<Record<PriceKey, string>>
  /** Path the handler is mounted under, e.g. `/dev/paddle` (default: the root). */
  readonly prefix?: string
  /**
   * Base URL browsers reach the stand-in at, for checkout links (e.g.
   * `http://localhost:7100/dev/paddle`). Default: `http://<Host of the API request><prefix>`.
   */
  readonly publicUrl?: string
  /** Where the browser goes after paying when the checkout link carries no `success_url`. */
  readonly successUrl?: string
  /**
   * Origins a checkout's `success_url` may point to besides the host the checkout was reached at
   * (e.g. burrowd's, when the stand-in runs on a port of its own). Others are ignored.
   */
  readonly returnOrigins?: readonly string[]
  /** Clock for periods, entity times, `occurred_at` and signature timestamps. */
  readonly now?: () => Date
  /** Waits before webhook retries (default 0.25 s, 1 s, 4 s). */
  readonly retryDelaysMs?: readonly number[]
  readonly log?: Logger
}

/** Paddle's API subset, a checkout page and webhooks, in memory. */
export class PaddleStandIn {
  readonly prefix: string
  readonly #opts: PaddleStandInOptions
  readonly #now: () => Date
  readonly #keyHash: Buffer
  readonly #sender: PaddleWebhookSender
  /** Where the stand-in reports failed deliveries and its own errors. */
  readonly log: Logger
  readonly prices: ReadonlyMap<string, StandInPrice>
  readonly customers = new Map<string, StandInCustomer>()
  readonly transactions = new Map<string, StandInTransaction>()
  /** How many coming transaction updates (`PATCH /transactions/{id}`) fail, as if Paddle were down. */
  transactionUpdateFaults = 0
  /** How many coming subscription cancellations fail, as if Paddle were down. */
  subscriptionCancelFaults = 0
  /**
   * How many coming subscription cancellations are refused as Paddle refuses any change in the
   * 30 minutes before a renewal (409 `subscription_locked_processing`).
   */
  subscriptionCancelLocks = 0
  readonly subscriptions = new Map<string, StandInSubscription>()
  /** What each change of a subscription's items billed or credited, oldest first. */
  readonly prorations: (Proration & { readonly subscriptionId: string; readonly at: Date })[] = []

  constructor(opts: PaddleStandInOptions) {
    this.#opts = opts
    this.prefix = (opts.prefix ?? '').replace(/\/+$/, '')
    this.#now = opts.now ?? (() => new Date())
    this.log = opts.log ?? silentLogger
    this.#keyHash = sha256(opts.apiKey)
    this.prices = standInPrices(opts.prices ?? DEV_PRICES)
    this.#sender = new PaddleWebhookSender({
      url: opts.notificationUrl,
      secret: opts.webhookSecret,
      now: this.#now,
      log: this.log,
      ...(opts.retryDelaysMs ? { retryDelaysMs: opts.retryDelaysMs } : {}),
    })
  }

  /** True when `path` (a request target) is under this stand-in's prefix. */
  handles(path: string): boolean {
    const pathname = path.split('?', 1)[0] ?? ''
    return this.prefix === '' || pathname === this.prefix || pathname.startsWith(this.prefix + '/')
  }

  /** Origins a `success_url` may point to besides the checkout's own host. */
  get returnOrigins(): readonly string[] {
    return this.#opts.returnOrigins ?? []
  }

  /** The clock the stand-in runs on. */
  now(): Date {
    return this.#now()
  }

  /** Handle one HTTP request (API call or checkout page). Never rejects. */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://stand-in.invalid')
    const path = url.pathname.slice(this.prefix.length) || '/'
    const method = req.method ?? 'GET'
    if (path === '/checkout' && (method === 'GET' || method === 'HEAD')) {
      return serveCheckoutPage(this, req, url, res)
    }
    if (path === '/checkout/pay' && method === 'POST') {
      return servePayForm(this, req, res, this.#opts.successUrl ?? null)
    }
    if (!this.#authorised(req)) {
      return sendApiError(
        res,
        new StandInError(403, 'forbidden', 'the API key is missing or not valid'),
      )
    }
    return serveApi(this, req, res, { base: this.#base(req), path, query: url.searchParams })
  }

  /**
   * Pay transaction `transactionId` as the checkout's Pay button does: complete it, create its
   * subscription (custom data copied, one period from now), send `transaction.completed`,
   * `subscription.created` and `subscription.activated`, and wait for their delivery.
   */
  async pay(transactionId: string): Promise<StandInSubscription> {
    const txn = this.transactions.get(transactionId)
    if (txn === undefined) throw new Error(`no transaction ${transactionId}`)
    if (txn.status !== 'draft') throw new Error(`transaction ${transactionId} is ${txn.status}`)
    const now = this.#now()
    const sub: StandInSubscription = {
      id: newId('sub_'),
      status: 'active',
      customerId: txn.customerId ?? newId('ctm_'),
      price: txn.price,
      customData: txn.customData,
      createdAt: now,
      periodStart: now,
      periodEnd: addCycle(now, txn.price.cycle),
      scheduledChange: null,
      canceledAt: null,
      pausedAt: null,
      updatedAt: now,
    }
    this.subscriptions.set(sub.id, sub)
    txn.status = 'completed'
    txn.subscriptionId = sub.id
    txn.updatedAt = now
    this.#sender.send('transaction.completed', transactionEntity(txn))
    this.#sender.send('subscription.created', {
      ...subscriptionEntity(sub),
      transaction_id: txn.id,
    })
    this.#sender.send('subscription.activated', subscriptionEntity(sub))
    await this.#sender.idle()
    return sub
  }

  /** Record a change to `sub` now and send `eventType` about it (delivery not awaited). */
  changed(sub: StandInSubscription, eventType: string): SentWebhook {
    sub.updatedAt = this.#now()
    return this.#sender.send(eventType, subscriptionEntity(sub))
  }

  // Test controls: what Paddle does on its own (renewals, failed payments, period ends), and
  // delivery faults. Each resolves once its webhooks are delivered (unless held).

  /**
   * The renewal payment fails: the next period starts unpaid, status `past_due`, and
   * `transaction.payment_failed` and `subscription.past_due` are sent.
   */
  async paymentFailed(subscriptionId: string): Promise<SentWebhook> {
    const sub = this.#subscription(subscriptionId)
    this.#renew(sub, 'past_due')
    this.#sender.send('transaction.payment_failed', transactionEntity(this.#renewal(sub, 'draft')))
    return this.#settle(this.changed(sub, 'subscription.past_due'))
  }

  /** A retried payment succeeds: status `active` again, `subscription.updated`. */
  async paymentRecovered(subscriptionId: string): Promise<SentWebhook> {
    const sub = this.#subscription(subscriptionId)
    sub.status = 'active'
    this.#sender.send('transaction.completed', transactionEntity(this.#renewal(sub, 'completed')))
    return this.#settle(this.changed(sub, 'subscription.updated'))
  }

  /**
   * The subscription ends now, e.g. when dunning gave up (Paddle's "unpaid/expired"): status
   * `canceled`, `subscription.canceled`.
   */
  async expire(subscriptionId: string): Promise<SentWebhook> {
    const sub = this.#subscription(subscriptionId)
    sub.status = 'canceled'
    sub.canceledAt = this.#now()
    sub.scheduledChange = null
    return this.#settle(this.changed(sub, 'subscription.canceled'))
  }

  /**
   * The current period ends (move the clock past it first): a scheduled cancellation takes
   * effect (`subscription.canceled`), a scheduled pause too (`subscription.paused`); otherwise
   * the subscription renews and is paid (`subscription.updated`).
   */
  async endPeriod(subscriptionId: string): Promise<SentWebhook> {
    const sub = this.#subscription(subscriptionId)
    const change = sub.scheduledChange
    if (change?.action === 'cancel') {
      sub.status = 'canceled'
      sub.canceledAt = change.effectiveAt
      sub.scheduledChange = null
      return this.#settle(this.changed(sub, 'subscription.canceled'))
    }
    if (change?.action === 'pause') {
      sub.status = 'paused'
      sub.pausedAt = change.effectiveAt
      sub.scheduledChange = null
      return this.#settle(this.changed(sub, 'subscription.paused'))
    }
    this.#renew(sub, 'active')
    this.#sender.send('transaction.completed', transactionEntity(this.#renewal(sub, 'completed')))
    return this.#settle(this.changed(sub, 'subscription.updated'))
  }

  /** The seller pauses the subscription now: status `paused`, `subscription.paused`. */
  async pause(subscriptionId: string): Promise<SentWebhook> {
    const sub = this.#subscription(subscriptionId)
    sub.status = 'paused'
    sub.pausedAt = this.#now()
    sub.scheduledChange = null
    return this.#settle(this.changed(sub, 'subscription.paused'))
  }

  /** A paused subscription resumes now, billed for a new period: `subscription.resumed`. */
  async resume(subscriptionId: string): Promise<SentWebhook> {
    const sub = this.#subscription(subscriptionId)
    sub.pausedAt = null
    sub.periodEnd = this.#now()
    this.#renew(sub, 'active')
    this.#sender.send('transaction.completed', transactionEntity(this.#renewal(sub, 'completed')))
    return this.#settle(this.changed(sub, 'subscription.resumed'))
  }

  /** Deliver an already-sent webhook again, unchanged (a duplicate). */
  resend(eventId: string): Promise<void> {
    return this.#sender.resend(eventId)
  }

  /** Answer the next `n` transaction updates with 503 (test control). */
  failTransactionUpdates(n: number): void {
    this.transactionUpdateFaults = n
  }

  /** Keep webhooks back until `releaseWebhooks`. */
  holdWebhooks(): void {
    this.#sender.hold()
  }

  /** Deliver held webhooks, in order or reversed (out of order, as Paddle may). */
  releaseWebhooks(order: 'sent' | 'reverse' = 'sent'): Promise<void> {
    return this.#sender.release(order)
  }

  /** Every webhook sent, oldest first, with its delivery state. */
  get webhooks(): readonly SentWebhook[] {
    return this.#sender.sent
  }

  /** Resolves when no webhook delivery is under way. */
  idle(): Promise<void> {
    return this.#sender.idle()
  }

  /** The subscription whose custom data names `accountId`, newest first. */
  subscriptionOf(accountId: string): StandInSubscription | undefined {
    return [...this.subscriptions.values()]
      .reverse()
      .find((s) => s.customData?.account_id === accountId)
  }

  async #settle(sent: SentWebhook): Promise<SentWebhook> {
    await this.#sender.idle()
    return sent
  }

  #subscription(id: string): StandInSubscription {
    const sub = this.subscriptions.get(id)
    if (sub === undefined) throw new Error(`no subscription ${id} in the Paddle stand-in`)
    return sub
  }

  #renew(sub: StandInSubscription, status: 'active' | 'past_due'): void {
    const start = sub.periodEnd ?? this.#now()
    sub.periodStart = start
    sub.periodEnd = addCycle(start, sub.price.cycle)
    sub.status = status
  }

  #renewal(sub: StandInSubscription, status: StandInTransaction['status']): StandInTransaction {
    const now = this.#now()
    const txn: StandInTransaction = {
      id: newId('txn_'),
      status,
      customerId: sub.customerId,
      price: sub.price,
      customData: sub.customData,
      checkoutUrl: '',
      subscriptionId: sub.id,
      createdAt: now,
      updatedAt: now,
    }
    this.transactions.set(txn.id, txn)
    return txn
  }

  /** Make a customer (API). */
  addCustomer(email: string): StandInCustomer {
    const customer = { id: newId('ctm_'), email, createdAt: this.#now() }
    this.customers.set(customer.id, customer)
    return customer
  }

  /** Make a transaction (API); its checkout link is under `base`. */
  addTransaction(input: {
    price: StandInPrice
    customerId: string | null
    customData: Readonly<Record<string, unknown>> | null
    base: string
  }): StandInTransaction {
    const now = this.#now()
    const id = newId('txn_')
    const txn: StandInTransaction = {
      id,
      status: 'draft',
      customerId: input.customerId,
      price: input.price,
      customData: input.customData,
      checkoutUrl: `${input.base}/checkout?_ptxn=${id}`,
      subscriptionId: null,
      createdAt: now,
      updatedAt: now,
    }
    this.transactions.set(id, txn)
    return txn
  }

  #authorised(req: IncomingMessage): boolean {
    const match = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')
    return match !== null && timingSafeEqual(sha256(match[1]!), this.#keyHash)
  }

  #base(req: IncomingMessage): string {
    return (
      this.#opts.publicUrl ?? `http://${req.headers.host ?? 'localhost'}${this.prefix}`
    ).replace(/\/+$/, '')
  }
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest()
}

function newId(prefix: string): string {
  return prefix + randomBytes(13).toString('hex')
}
