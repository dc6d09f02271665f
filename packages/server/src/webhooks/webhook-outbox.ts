/**
 * The durable outbox: an event becomes one `webhook_deliveries` row per enabled endpoint of the
 * account that subscribes to its type, written in the caller's transaction so the event and its
 * deliveries commit (or roll back) together. The dispatcher sends them later, from any node.
 * The body is serialised here, once, and sent byte for byte on every attempt; the row id is the
 * `webhook-id` header, unchanged across retries.
 */

import { randomBytes } from 'node:crypto'
import { PostgresAdapter } from 'kysely'
import type { Kysely } from 'kysely'
import type { Database } from '../store/schema.js'
import type { WebhookEventBody, WebhookEventType } from './webhook-event.js'

/** Where a delivery stands: being tried, done, given up, or dropped with its endpoint. */
export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'cancelled'] as const

/** One of `WEBHOOK_DELIVERY_STATUSES`. */
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number]

/** A stored status as the type; anything unexpected reads as `failed` (never sent again). */
export function toDeliveryStatus(value: string): WebhookDeliveryStatus {
  return WEBHOOK_DELIVERY_STATUSES.find((s) => s === value) ?? 'failed'
}

/** An event to deliver. */
export interface WebhookEventInput {
  readonly accountId: string
  readonly type: WebhookEventType
  /**
   * The `webhook-id`: letters, digits, `_` and `-` (no dots), at most 200 characters. Give a
   * deterministic one to make a repeated event a no-op; default `msg_` + random.
   */
  readonly id?: string
  readonly data: Readonly<Record<string, unknown>>
  /** When it happened: the body's `timestamp`, and when the first attempt is due. */
  readonly occurredAt: Date
}

const EVENT_ID = /^[A-Za-z0-9_-]{1,200}$/

/**
 * Queue `event` for every enabled endpoint of its account subscribed to its type, in `db` (a
 * transaction or the database). Returns the deliveries queued: 0 when nothing subscribes or
 * when this id was already queued for those endpoints. Throws RangeError for a malformed id.
 */
export async function enqueueWebhookEvent(
  db: Kysely<Database>,
  event: WebhookEventInput,
): Promise<number> {
  const id = event.id ?? 'msg_' + randomBytes(12).toString('hex')
  if (!EVENT_ID.test(id)) {
    throw new RangeError(`webhook event id "${id}" must be 1-200 of A-Z, a-z, 0-9, "_", "-"`)
  }
  if (!db.isTransaction && db.getExecutor().adapter instanceof PostgresAdapter) {
    return db.transaction().execute((trx) => enqueueWebhookEvent(trx, { ...event, id }))
  }
  let read = db
    .selectFrom('webhook_endpoints')
    .select(['id', 'events'])
    .where('account_id', '=', event.accountId)
    .where('disabled_at', 'is', null)
  // PostgreSQL: hold the endpoints until the deliveries are in. Without the lock, one deleted
  // meanwhile failed the insert's foreign key, and the event reached none of the others; with
  // it, the read waits for a delete in progress and then leaves the deleted endpoint out.
  if (db.getExecutor().adapter instanceof PostgresAdapter) read = read.forKeyShare()
  const endpoints = await read.execute()
  const subscribed = endpoints.filter((e) => e.events.split(',').includes(event.type))
  if (subscribed.length === 0) return 0
  const at = event.occurredAt.toISOString()
  const body: WebhookEventBody = { type: event.type, timestamp: at, data: event.data }
  const payload = JSON.stringify(body)
  const inserted = await db
    .insertInto('webhook_deliveries')
    .values(
      subscribed.map((endpoint) => ({
        id,
        endpoint_id: endpoint.id,
        account_id: event.accountId,
        type: event.type,
        payload,
        status: 'pending',
        attempts: 0,
        next_attempt_at: at,
        created_at: at,
      })),
    )
    .onConflict((oc) => oc.columns(['endpoint_id', 'id']).doNothing())
    .returning('endpoint_id')
    .execute()
  return inserted.length
}
