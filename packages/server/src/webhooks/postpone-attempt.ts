/**
 * What an attempt that was never made does to its delivery: burrowd's own name lookups were all
 * taken (other names held them) for as long as its lookup could wait, so nothing is known of the
 * receiver. The attempt is put off, not counted, and the delivery log says so; but only for as
 * long as the schedule's next step (retry-schedule.ts) from when it first became due. Past that
 * it is counted, as an attempt of the delivery (which goes on along its schedule, and ends
 * `failed` when that is used up) but never as the endpoint's failure: burrowd's congestion does
 * not disable anyone's endpoint, and no delivery is put off without end either.
 */

import type { Kysely } from 'kysely'
import type { Database } from '../store/schema.js'
import { BUSY_RETRY_MS, RETRY_DELAYS_MS, retryDelay } from './retry-schedule.js'

/** The attempt that was not made. */
export interface UnmadeAttempt {
  readonly id: string
  readonly endpointId: string
  /** Its number (1-based), as claimed. */
  readonly attempt: number
  /** When it was due before it was claimed, and since when it is put off (null: not yet). */
  readonly dueAt: string
  readonly postponedSince: string | null
  /** Why it was not made. */
  readonly error: string
}

/** How an unmade attempt was taken: put off again, or counted (and whether that was the last). */
export type Postponement = 'postponed' | 'counted' | 'failed'

/** How long attempt `attempt` may be put off: the schedule's step after it (the last for the last). */
export function postponeLimitMs(attempt: number): number {
  const steps = RETRY_DELAYS_MS
  return steps[Math.min(attempt, steps.length) - 1] ?? steps[0]!
}

/**
 * Put `unmade` off by `BUSY_RETRY_MS`, uncounted, or count it when it has been put off longer
 * than `postponeLimitMs`. `random` jitters the schedule's delay. Does nothing when the delivery is
 * no longer this attempt's.
 */
export async function postponeAttempt(
  db: Kysely<Database>,
  unmade: UnmadeAttempt,
  at: Date,
  random: () => number,
): Promise<Postponement> {
  const since = unmade.postponedSince ?? unmade.dueAt
  const sinceMs = Date.parse(since)
  // A time that does not read (never written so) counts as long past: never put off for ever.
  const putOffMs = Number.isNaN(sinceMs) ? Infinity : at.getTime() - sinceMs
  const which = db
    .updateTable('webhook_deliveries')
    .where('endpoint_id', '=', unmade.endpointId)
    .where('id', '=', unmade.id)
    .where('status', '=', 'pending')
    .where('attempts', '=', unmade.attempt)
  if (putOffMs <= postponeLimitMs(unmade.attempt)) {
    await which
      .set({
        attempts: unmade.attempt - 1,
        next_attempt_at: new Date(at.getTime() + BUSY_RETRY_MS).toISOString(),
        postponed_since: since,
        last_error:
          `postponed since ${since}: not sent, burrowd's name lookups were all busy with other ` +
          `names (not this endpoint's failure); ${unmade.error}`,
      })
      .execute()
    return 'postponed'
  }
  const delay = retryDelay(unmade.attempt, random)
  await which
    .set({
      status: delay === null ? 'failed' : 'pending',
      next_attempt_at: delay === null ? null : new Date(at.getTime() + delay).toISOString(),
      postponed_since: null,
      last_attempt_at: at.toISOString(),
      last_status: null,
      last_error:
        `not sent: postponed since ${since}, longer than this attempt may wait, because ` +
        `burrowd's name lookups were all busy with other names; counted as attempt ` +
        `${unmade.attempt}, not as this endpoint's failure`,
    })
    .execute()
  return delay === null ? 'failed' : 'counted'
}
