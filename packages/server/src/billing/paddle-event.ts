/**
 * Parsing what Paddle sends: a webhook body into a typed `PaddleEvent`, and a subscription entity
 * (in a webhook's `data` or an API response) into a `PaddleSubscription`. Untrusted JSON is
 * checked field by field here and nowhere else; anything malformed is a `PaddleEventError`
 * naming the field, which the webhook answers with 400. Only the fields billing uses are read.
 */

import { parseMicros, type Micros } from './provider-time.js'

/** Subscription statuses Paddle Billing uses. */
export const PADDLE_SUBSCRIPTION_STATUSES = [
  'active',
  'trialing',
  'past_due',
  'paused',
  'canceled',
] as const

/** A Paddle subscription status. */
export type PaddleSubscriptionStatus = (typeof PADDLE_SUBSCRIPTION_STATUSES)[number]

/** The event types that can change an account's plan; every other type is recorded and ignored. */
export const PLAN_EVENT_TYPES: readonly string[] = [
  'subscription.created',
  'subscription.activated',
  'subscription.updated',
  'subscription.trialing',
  'subscription.past_due',
  'subscription.paused',
  'subscription.resumed',
  'subscription.canceled',
  'subscription.imported',
]

/** Actions Paddle can schedule on a subscription. */
export type ScheduledAction = 'cancel' | 'pause' | 'resume'

const SCHEDULED_ACTIONS: readonly ScheduledAction[] = ['cancel', 'pause', 'resume']

/** A subscription as Paddle last described it; only what billing needs. */
export interface PaddleSubscription {
  /** `sub_…`. */
  readonly id: string
  /** `ctm_…`. */
  readonly customerId: string | null
  readonly status: PaddleSubscriptionStatus
  /** The price ids of its items (`pri_…`), in order. */
  readonly priceIds: readonly string[]
  /** Our custom data, copied by Paddle from the checkout transaction. */
  readonly customData: { readonly account_id?: string }
  /** End of the current billing period; null once canceled or paused. */
  readonly currentPeriodEndsAt: Date | null
  /** A change Paddle will make at `effectiveAt`, e.g. a cancellation at the period's end. */
  readonly scheduledChange: { readonly action: ScheduledAction; readonly effectiveAt: Date } | null
  /** When Paddle last changed the entity, if given. */
  readonly updatedAt: Date | null
  /** `updatedAt` in microseconds since the Unix epoch, as precise as Paddle wrote it. */
  readonly updatedAtMicros?: Micros | null
}

/** A webhook event. */
export interface PaddleEvent {
  /** `evt_…`: the same on every delivery attempt, so duplicates are recognised. */
  readonly eventId: string
  /** e.g. `subscription.updated`, `transaction.completed`. */
  readonly eventType: string
  /** When it happened at Paddle: events are applied in this order, not in arrival order. */
  readonly occurredAt: Date
  /**
   * `occurredAt` in microseconds since the Unix epoch, as precise as Paddle wrote it: events of
   * one subscription in the same millisecond are ordered by it.
   */
  readonly occurredAtMicros: Micros
  /** The subscription, for `subscription.*` events. */
  readonly subscription?: PaddleSubscription
  /**
   * For `subscription.created`: the transaction (`txn_…`) whose payment made the subscription,
   * which Paddle sends in that event only (`data.transaction_id`); null when absent.
   */
  readonly createdFrom?: string | null
  /** For `adjustment.*` events: a refund, credit or chargeback of a transaction. */
  readonly adjustment?: PaddleAdjustment
}

/** What billing reads of an adjustment (`adjustment.created`, `adjustment.updated`). */
export interface PaddleAdjustment {
  /** `refund`, `credit`, `chargeback`, `chargeback_reverse`, `chargeback_warning`, … */
  readonly action: string
  /** `pending_approval`, `approved`, `rejected`, `reversed`. */
  readonly status: string
  /** The subscription whose transaction it adjusts, if any. */
  readonly subscriptionId: string | null
  /** The transaction (`txn_…`) it adjusts; a chargeback and its reversal name the same one. */
  readonly transactionId?: string | null
}

/** A webhook body or entity that is not what Paddle sends. */
export class PaddleEventError extends Error {
  /** Stable code for the webhook's 400 body. */
  readonly code = 'malformed_event'

  constructor(message: string) {
    super(message)
    this.name = 'PaddleEventError'
  }
}

/** True for event types that change plans (`subscription.*` as listed in `PLAN_EVENT_TYPES`). */
export function isPlanEvent(eventType: string): boolean {
  return PLAN_EVENT_TYPES.includes(eventType)
}

/** Parse a webhook body. Throws `PaddleEventError` saying which field is wrong. */
export function parsePaddleEvent(rawBody: Buffer | string): PaddleEvent {
  let json: unknown
  try {
    json = JSON.parse(typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8'))
  } catch (error) {
    throw new PaddleEventError(
      `the Paddle event is not JSON: ${(error as Error).message.slice(0, 100)}`,
    )
  }
  const body = object(json, 'the event')
  const eventId = text(body.event_id, 'event_id')
  const eventType = text(body.event_type, 'event_type')
  const occurredAt = date(body.occurred_at, 'occurred_at')
  const occurredAtMicros = parseMicros(body.occurred_at as string)
  if (eventType.startsWith('adjustment.')) {
    const data = object(body.data, 'data')
    const adjustment = {
      action: text(data.action, 'data.action'),
      status: text(data.status, 'data.status'),
      subscriptionId: nullable(data.subscription_id, (v) => text(v, 'data.subscription_id')),
      transactionId: nullable(data.transaction_id, (v) => text(v, 'data.transaction_id')),
    }
    return { eventId, eventType, occurredAt, occurredAtMicros, adjustment }
  }
  if (!eventType.startsWith('subscription.')) {
    return { eventId, eventType, occurredAt, occurredAtMicros }
  }
  const subscription = parsePaddleSubscription(body.data)
  const createdFrom =
    eventType === 'subscription.created'
      ? nullable((body.data as Record<string, unknown>).transaction_id, (v) =>
          text(v, 'data.transaction_id'),
        )
      : null
  return { eventId, eventType, occurredAt, occurredAtMicros, subscription, createdFrom }
}

/**
 * Parse a subscription entity (`where` names it in errors, e.g. `data`). Throws
 * `PaddleEventError`.
 */
export function parsePaddleSubscription(value: unknown, where = 'data'): PaddleSubscription {
  const data = object(value, where)
  const status = text(data.status, `${where}.status`)
  if (!(PADDLE_SUBSCRIPTION_STATUSES as readonly string[]).includes(status)) {
    throw new PaddleEventError(
      `Paddle event field ${where}.status is "${clip(status)}"; expected one of ${PADDLE_SUBSCRIPTION_STATUSES.join(', ')}`,
    )
  }
  const items = data.items
  if (!Array.isArray(items) || items.length === 0) {
    throw new PaddleEventError(`Paddle event field ${where}.items must be a non-empty array`)
  }
  const priceIds = items.map((item: unknown, i) => {
    const price = object(object(item, `${where}.items[${i}]`).price, `${where}.items[${i}].price`)
    return text(price.id, `${where}.items[${i}].price.id`)
  })
  return {
    id: text(data.id, `${where}.id`),
    customerId: nullable(data.customer_id, (v) => text(v, `${where}.customer_id`)),
    status: status as PaddleSubscriptionStatus,
    priceIds,
    customData: customData(data.custom_data, `${where}.custom_data`),
    currentPeriodEndsAt: nullable(data.current_billing_period, (v) => {
      const period = object(v, `${where}.current_billing_period`)
      return date(period.ends_at, `${where}.current_billing_period.ends_at`)
    }),
    scheduledChange: nullable(data.scheduled_change, (v) => {
      const change = object(v, `${where}.scheduled_change`)
      const action = text(change.action, `${where}.scheduled_change.action`)
      if (!(SCHEDULED_ACTIONS as readonly string[]).includes(action)) {
        throw new PaddleEventError(
          `Paddle event field ${where}.scheduled_change.action is "${clip(action)}"; expected one of ${SCHEDULED_ACTIONS.join(', ')}`,
        )
      }
      return {
        action: action as ScheduledAction,
        effectiveAt: date(change.effective_at, `${where}.scheduled_change.effective_at`),
      }
    }),
    updatedAt: nullable(data.updated_at, (v) => date(v, `${where}.updated_at`)),
    updatedAtMicros: nullable(data.updated_at, (v) => parseMicros(v as string)),
  }
}

function object(value: unknown, where: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new PaddleEventError(`Paddle event field ${where} must be an object`)
  }
  return value as Record<string, unknown>
}

function text(value: unknown, where: string): string {
  if (typeof value !== 'string' || value === '' || value.length > 200 || !storable(value)) {
    throw new PaddleEventError(
      `Paddle event field ${where} must be a string of 1 to 200 characters a database can store`,
    )
  }
  return value
}

/** With the `u` flag a paired surrogate is one code point: `\p{Cs}` matches only lone ones. */
const LONE_SURROGATE = /\p{Cs}/u

/**
 * False for text no database stores as it is: U+0000, which PostgreSQL refuses in text (the
 * whole transaction fails), or an unpaired surrogate, which UTF-8 cannot carry.
 */
function storable(value: string): boolean {
  return !value.includes('\u0000') && !LONE_SURROGATE.test(value)
}

/**
 * RFC 3339 as Paddle writes it (`2024-04-12T10:18:49.621022Z`); the `Date` drops the
 * microseconds, which `parseMicros` keeps.
 */
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/

function date(value: unknown, where: string): Date {
  const when = typeof value === 'string' && RFC3339.test(value) ? new Date(value) : null
  if (when === null || Number.isNaN(when.getTime()) || !isCalendarDay(value as string)) {
    throw new PaddleEventError(
      `Paddle event field ${where} must be an RFC 3339 time such as 2024-04-12T10:18:49.621Z`,
    )
  }
  return when
}

/** False for days Date would roll over (`2026-02-30` becomes March 2). */
function isCalendarDay(value: string): boolean {
  const [y, m, d] = value.slice(0, 10).split('-').map(Number) as [number, number, number]
  const day = new Date(Date.UTC(y, m - 1, d))
  return day.getUTCMonth() === m - 1 && day.getUTCDate() === d
}

function nullable<T>(value: unknown, parse: (value: unknown) => T): T | null {
  return value === null || value === undefined ? null : parse(value)
}

function customData(value: unknown, where: string): { account_id?: string } {
  if (value === null || value === undefined) return {}
  const data = object(value, where)
  // Other keys are ours to ignore; a non-string account id is treated as absent, not trusted, and
  // so is one no database can look up (the buyer writes it: on PostgreSQL a NUL would fail the
  // event's transaction, answered 500 and sent again for days, where SQLite finds no account).
  const id = data.account_id
  return typeof id === 'string' && id !== '' && storable(id) ? { account_id: id } : {}
}

function clip(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text
}
