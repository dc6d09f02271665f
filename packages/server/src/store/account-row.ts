/**
 * How an `accounts` row becomes an `Account`: camelCase, `Date` times, and the plan in force now
 * (`effectivePlan`), never the stored plan alone. The password hash never leaves the store.
 */

import { isPlanId } from '../plans.js'
import type { PlanId } from '../plans.js'
import type { Selectable } from 'kysely'
import { effectivePlan } from './effective-plan.js'
import type { Database } from './schema.js'

/** A customer account. */
export interface Account {
  readonly id: string
  readonly email: string
  readonly slug: string
  /** The plan in force now: the stored plan, or Free once `planExpiresAt` has passed. */
  readonly plan: PlanId
  /** When a cancelled paid plan ends (it may have passed), or null when no end is set. */
  readonly planExpiresAt: Date | null
  readonly createdAt: Date
}

/** The `Account` of `row` as of `now`. */
export function toAccount(row: Selectable<Database['accounts']>, now: Date): Account {
  const planExpiresAt = toDate(row.plan_expires_at)
  return {
    id: row.id,
    email: row.email,
    slug: row.slug,
    plan: planInForce(row.id, row.plan, planExpiresAt, now),
    planExpiresAt,
    createdAt: new Date(row.created_at),
  }
}

/**
 * The effective plan of account `accountId` from its stored `plan` and expiry. Throws when the
 * stored plan is not one we know (a bad migration or a manual edit), rather than guessing.
 */
export function planInForce(
  accountId: string,
  plan: string,
  planExpiresAt: Date | null,
  now: Date,
): PlanId {
  if (!isPlanId(plan))
    throw new Error(`account ${accountId} has unknown plan "${plan}" in the database`)
  return effectivePlan(plan, planExpiresAt, now)
}

/** A nullable ISO-8601 column as a `Date`. */
export function toDate(value: string | null): Date | null {
  return value === null ? null : new Date(value)
}
