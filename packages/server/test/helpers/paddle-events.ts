/**
 * Paddle webhook bodies for tests, shaped like the ones Paddle documents (and the dev stand-in
 * sends): a subscription entity with overridable fields, and the event envelope around it.
 */

import { randomBytes } from 'node:crypto'

/** Test price ids, as `BillingConfig.prices`. */
export const TEST_PRICES = {
  pro_monthly: 'pri_test_pro_monthly',
  pro_annual: 'pri_test_pro_annual',
  scale_monthly: 'pri_test_scale_monthly',
  scale_annual: 'pri_test_scale_annual',
} as const

/** Fields of a subscription entity to override. */
export interface SubscriptionFields {
  id?: string
  status?: string
  priceId?: string
  accountId?: string | null
  periodEndsAt?: Date | null
  scheduledCancelAt?: Date | null
  customData?: unknown
  updatedAt?: Date
  /** The paying customer (`ctm_01test` by default). */
  customerId?: string
  /** `transaction_id`, which `subscription.created` carries: the checkout's transaction. */
  transactionId?: string
}

/** A subscription entity: active Pro monthly for `accountId`, period ending in a month. */
export function subscriptionData(fields: SubscriptionFields = {}): Record<string, unknown> {
  const periodEnd =
    fields.periodEndsAt === undefined ? new Date('2026-04-04T00:00:00.000Z') : fields.periodEndsAt
  const cancelAt = fields.scheduledCancelAt ?? null
  return {
    id: fields.id ?? 'sub_01test',
    status: fields.status ?? 'active',
    customer_id: fields.customerId ?? 'ctm_01test',
    address_id: 'add_01test',
    business_id: null,
    currency_code: 'USD',
    created_at: '2026-03-04T00:00:00.000000Z',
    updated_at: (fields.updatedAt ?? new Date('2026-03-04T00:00:00.000Z')).toISOString(),
    started_at: '2026-03-04T00:00:00.000000Z',
    first_billed_at: '2026-03-04T00:00:00.000000Z',
    next_billed_at: cancelAt === null && periodEnd !== null ? periodEnd.toISOString() : null,
    paused_at: null,
    canceled_at: null,
    collection_mode: 'automatic',
    billing_details: null,
    current_billing_period:
      periodEnd === null
        ? null
        : { starts_at: '2026-03-04T00:00:00.000000Z', ends_at: periodEnd.toISOString() },
    billing_cycle: { interval: 'month', frequency: 1 },
    scheduled_change:
      cancelAt === null
        ? null
        : { action: 'cancel', effective_at: cancelAt.toISOString(), resume_at: null },
    items: [
      {
        status: 'active',
        quantity: 1,
        recurring: true,
        price: { id: fields.priceId ?? TEST_PRICES.pro_monthly, product_id: 'pro_01test' },
      },
    ],
    custom_data:
      fields.customData !== undefined
        ? fields.customData
        : fields.accountId === null
          ? null
          : { account_id: fields.accountId ?? 'acc_missing' },
    management_urls: null,
    discount: null,
    ...(fields.transactionId === undefined ? {} : { transaction_id: fields.transactionId }),
  }
}

/** A webhook envelope around `data`. */
export function eventBody(
  eventType: string,
  data: unknown,
  opts: { eventId?: string; occurredAt?: Date } = {},
): Record<string, unknown> {
  return {
    event_id: opts.eventId ?? `evt_${randomBytes(8).toString('hex')}`,
    event_type: eventType,
    occurred_at: (opts.occurredAt ?? new Date('2026-03-04T00:00:00.000Z')).toISOString(),
    notification_id: `ntf_${randomBytes(8).toString('hex')}`,
    data,
  }
}
