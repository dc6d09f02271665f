/**
 * The records the dev provider's stand-in keeps (prices, transactions, subscriptions) and how
 * they look on the wire: the JSON entities of Paddle Billing's API and webhooks, with the fields
 * Paddle documents, so what burrowd parses in development is what it parses in production.
 */

import { PLANS } from '../plans.js'
import type { BillingCycle, PaidPlanId, PriceKey } from './billing-config.js'
import { BILLING_CYCLES, PAID_PLAN_IDS, priceKey } from './billing-config.js'
import type { PaddleSubscriptionStatus, ScheduledAction } from './paddle-event.js'

/** A price the stand-in sells. */
export interface StandInPrice {
  /** `pri_…`. */
  readonly id: string
  readonly plan: PaidPlanId
  readonly cycle: BillingCycle
  /** In US cents, from the plan catalog. */
  readonly amountCents: number
}

/** A customer. */
export interface StandInCustomer {
  readonly id: string
  readonly email: string
  readonly createdAt: Date
}

/** A transaction: made by the API, completed when its checkout is paid. */
export interface StandInTransaction {
  readonly id: string
  /** `canceled` once voided through the API (`PATCH /transactions/{id}`): it cannot be paid. */
  status: 'draft' | 'completed' | 'canceled'
  readonly customerId: string | null
  readonly price: StandInPrice
  readonly customData: Readonly<Record<string, unknown>> | null
  readonly checkoutUrl: string
  subscriptionId: string | null
  readonly createdAt: Date
  updatedAt: Date
}

/** A subscription, made when a checkout is paid. */
export interface StandInSubscription {
  readonly id: string
  status: PaddleSubscriptionStatus
  readonly customerId: string
  price: StandInPrice
  readonly customData: Readonly<Record<string, unknown>> | null
  readonly createdAt: Date
  periodStart: Date | null
  periodEnd: Date | null
  scheduledChange: { action: ScheduledAction; effectiveAt: Date } | null
  canceledAt: Date | null
  pausedAt: Date | null
  updatedAt: Date
}

/** The four prices the stand-in sells, with amounts from the plan catalog. */
export function standInPrices(ids: Readonly<Record<PriceKey, string>>): Map<string, StandInPrice> {
  const prices = new Map<string, StandInPrice>()
  for (const plan of PAID_PLAN_IDS) {
    for (const cycle of BILLING_CYCLES) {
      const usd = cycle === 'monthly' ? PLANS[plan].priceMonthlyUsd : PLANS[plan].priceAnnualUsd
      const id = ids[priceKey(plan, cycle)]
      prices.set(id, { id, plan, cycle, amountCents: Math.round(usd * 100) })
    }
  }
  return prices
}

/**
 * `date` plus one billing cycle, in UTC; a day past the end of the target month is clamped
 * (Jan 31 + 1 month = Feb 28 or 29), as card billing does.
 */
export function addCycle(date: Date, cycle: BillingCycle): Date {
  const months = cycle === 'monthly' ? 1 : 12
  const target = new Date(date.getTime())
  const day = target.getUTCDate()
  target.setUTCDate(1)
  target.setUTCMonth(target.getUTCMonth() + months)
  const lastDay = new Date(
    Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0),
  ).getUTCDate()
  target.setUTCDate(Math.min(day, lastDay))
  return target
}

/** A price entity. */
export function priceEntity(price: StandInPrice): Record<string, unknown> {
  return {
    id: price.id,
    product_id: `pro_dev_${price.plan}`,
    description: `${PLANS[price.plan].name}, ${price.cycle}`,
    name: `${PLANS[price.plan].name} ${price.cycle}`,
    billing_cycle: billingCycle(price.cycle),
    trial_period: null,
    tax_mode: 'account_setting',
    unit_price: { amount: String(price.amountCents), currency_code: 'USD' },
    quantity: { minimum: 1, maximum: 1 },
    status: 'active',
    custom_data: null,
  }
}

/** A transaction entity. */
export function transactionEntity(txn: StandInTransaction): Record<string, unknown> {
  return {
    id: txn.id,
    status: txn.status,
    customer_id: txn.customerId,
    address_id: null,
    business_id: null,
    custom_data: txn.customData,
    currency_code: 'USD',
    origin: 'api',
    subscription_id: txn.subscriptionId,
    invoice_id: null,
    invoice_number: null,
    collection_mode: 'automatic',
    discount_id: null,
    billing_details: null,
    billing_period: null,
    items: [{ price: priceEntity(txn.price), quantity: 1 }],
    checkout: { url: txn.checkoutUrl },
    created_at: txn.createdAt.toISOString(),
    updated_at: txn.updatedAt.toISOString(),
    billed_at: txn.status === 'completed' ? txn.updatedAt.toISOString() : null,
  }
}

/** A subscription entity. */
export function subscriptionEntity(sub: StandInSubscription): Record<string, unknown> {
  const running = sub.status !== 'canceled' && sub.status !== 'paused'
  const period =
    running && sub.periodStart !== null && sub.periodEnd !== null
      ? { starts_at: sub.periodStart.toISOString(), ends_at: sub.periodEnd.toISOString() }
      : null
  // Nothing is billed next once a cancellation or pause is scheduled.
  const nextBilledAt = running && sub.scheduledChange === null ? iso(sub.periodEnd) : null
  return {
    id: sub.id,
    status: sub.status,
    customer_id: sub.customerId,
    address_id: null,
    business_id: null,
    currency_code: 'USD',
    created_at: sub.createdAt.toISOString(),
    updated_at: sub.updatedAt.toISOString(),
    started_at: sub.createdAt.toISOString(),
    first_billed_at: sub.createdAt.toISOString(),
    next_billed_at: nextBilledAt,
    paused_at: iso(sub.pausedAt),
    canceled_at: iso(sub.canceledAt),
    collection_mode: 'automatic',
    billing_details: null,
    current_billing_period: period,
    billing_cycle: billingCycle(sub.price.cycle),
    scheduled_change:
      sub.scheduledChange === null
        ? null
        : {
            action: sub.scheduledChange.action,
            effective_at: sub.scheduledChange.effectiveAt.toISOString(),
            resume_at: null,
          },
    items: [
      {
        status: 'active',
        quantity: 1,
        recurring: true,
        created_at: sub.createdAt.toISOString(),
        updated_at: sub.updatedAt.toISOString(),
        previously_billed_at: iso(sub.periodStart),
        next_billed_at: nextBilledAt,
        trial_dates: null,
        price: priceEntity(sub.price),
      },
    ],
    custom_data: sub.customData,
    management_urls: null,
    discount: null,
  }
}

/** A customer entity. */
export function customerEntity(customer: StandInCustomer): Record<string, unknown> {
  return {
    id: customer.id,
    email: customer.email,
    name: null,
    locale: 'en',
    status: 'active',
    marketing_consent: false,
    custom_data: null,
    created_at: customer.createdAt.toISOString(),
    updated_at: customer.createdAt.toISOString(),
  }
}

function billingCycle(cycle: BillingCycle): { interval: 'month' | 'year'; frequency: 1 } {
  return { interval: cycle === 'monthly' ? 'month' : 'year', frequency: 1 }
}

function iso(date: Date | null): string | null {
  return date === null ? null : date.toISOString()
}
