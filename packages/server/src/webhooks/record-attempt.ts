/**
 * What one delivery attempt's outcome does to the outbox: the delivery is marked delivered,
 * scheduled for its next attempt, or failed for good, with the attempt's time, status and error
 * kept for the delivery log; the endpoint's run of failures is reset or extended. An endpoint is
 * disabled, with the reason stored and its pending deliveries cancelled, when it answers 410,
 * or when a delivery used up its whole schedule (about a day) without the endpoint accepting
 * anything meanwhile: a short outage never disables it, a dead receiver does.
 */

import type { Kysely } from 'kysely'
import type { Database } from '../store/schema.js'
import type { TriedOutcome } from './post-webhook.js'
import { MAX_ATTEMPTS, retryDelay } from './retry-schedule.js'

/** The attempt being recorded: which delivery, its number (1-based) and when it was made. */
export interface AttemptedDelivery {
  readonly id: string
  readonly endpointId: string
  readonly attempt: number
  readonly at: Date
}

/**
 * Record `outcome` of `delivery` in one transaction. `random` jitters the retry delay. Returns
 * why the endpoint was disabled, or null. Does nothing when the delivery is no longer this
 * attempt's (cancelled meanwhile, or its lease ran out and another node took it).
 */
export async function recordAttempt(
  db: Kysely<Database>,
  delivery: AttemptedDelivery,
  outcome: TriedOutcome,
  random: () => number,
): Promise<string | null> {
  const { at, attempt } = delivery
  const delay = outcome.kind === 'failed' ? retryDelay(attempt, random, outcome.retryAfterMs) : null
  const status = outcome.kind === 'delivered' ? 'delivered' : delay === null ? 'failed' : 'pending'
  return db.transaction().execute(async (trx) => {
    const updated = await trx
      .updateTable('webhook_deliveries')
      .set({
        status,
        next_attempt_at: delay === null ? null : new Date(at.getTime() + delay).toISOString(),
        last_attempt_at: at.toISOString(),
        last_status: outcome.status,
        last_error: outcome.kind === 'delivered' ? null : outcome.error,
        postponed_since: null,
      })
      .where('endpoint_id', '=', delivery.endpointId)
      .where('id', '=', delivery.id)
      .where('status', '=', 'pending')
      .where('attempts', '=', attempt)
      .executeTakeFirst()
    if (updated.numUpdatedRows !== 1n) return null
    if (outcome.kind === 'delivered') {
      await trx
        .updateTable('webhook_endpoints')
        .set({ consecutive_failures: 0 })
        .where('id', '=', delivery.endpointId)
        .execute()
      return null
    }
    const counted = await trx
      .updateTable('webhook_endpoints')
      .set((eb) => ({ consecutive_failures: eb('consecutive_failures', '+', 1) }))
      .where('id', '=', delivery.endpointId)
      .returning('consecutive_failures')
      .executeTakeFirst()
    const failures = Number(counted?.consecutive_failures ?? 0)
    let reason: string | null = null
    if (outcome.kind === 'gone') {
      reason =
        'disabled at once: the endpoint answered HTTP 410 Gone, which asks for no more events'
    } else if (delay === null && failures >= MAX_ATTEMPTS) {
      reason = `disabled after ${failures} failed attempts in a row; last: ${outcome.error}`
    }
    if (reason !== null) await disableEndpoint(trx, delivery.endpointId, at, reason)
    return reason
  })
}

/** Stop sending to an endpoint, store why, and cancel what it still had pending. */
export async function disableEndpoint(
  db: Kysely<Database>,
  endpointId: string,
  at: Date,
  reason: string,
): Promise<void> {
  await db
    .updateTable('webhook_endpoints')
    .set({ disabled_at: at.toISOString(), disabled_reason: reason })
    .where('id', '=', endpointId)
    .where('disabled_at', 'is', null)
    .execute()
  await db
    .updateTable('webhook_deliveries')
    .set({ status: 'cancelled', next_attempt_at: null })
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'pending')
    .execute()
}

/**
 * Give back attempt number `attempt` of a delivery, not counted: it was interrupted (burrowd is
 * stopping). Due again at `at`.
 */
export async function giveBackAttempt(
  db: Kysely<Database>,
  delivery: AttemptedDelivery,
): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ attempts: delivery.attempt - 1, next_attempt_at: delivery.at.toISOString() })
    .where('endpoint_id', '=', delivery.endpointId)
    .where('id', '=', delivery.id)
    .where('status', '=', 'pending')
    .where('attempts', '=', delivery.attempt)
    .execute()
}
