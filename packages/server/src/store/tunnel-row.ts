/**
 * Tunnels as the store returns them, and how a `tunnels` row becomes one: camelCase, `Date`
 * times, never the key hash. Also the rule for friendly names.
 */

import type { PlanId } from '../plans.js'
import type { Selectable } from 'kysely'
import { toDate } from './account-row.js'
import type { Database } from './schema.js'
import { StoreError } from './store-error.js'

/** A tunnel: one public hostname and the key that may serve it. The key hash is not exposed. */
/**
 * A tunnel just deleted, and the account's stopped tunnel that serves in its place now
 * (`startedServing`, after a downgrade left more tunnels than the plan serves), which carries on
 * its month of usage; null when none did, and the account's next new tunnel carries it on.
 */
export interface DeletedTunnel extends Tunnel {
  readonly startedServing: string | null
}

export interface Tunnel {
  readonly id: string
  readonly accountId: string
  readonly name: string | null
  readonly subdomain: string
  readonly createdAt: Date
  readonly lastSeenAt: Date | null
}

/** A tunnel as its owner sees it: whether it serves now under the account's plan, and why. */
export interface TunnelStatus extends Tunnel {
  /** True when the tunnel is among the first `PLANS[plan].tunnels` in serving order. */
  readonly serving: boolean
  /** True when the owner chose it to keep serving (`chooseServingTunnels`). */
  readonly pinned: boolean
}

/** A tunnel with what routing and quotas need of its account. */
export interface TunnelWithAccount extends TunnelStatus {
  readonly accountSlug: string
  /** The account's plan in force now (`effectivePlan`). */
  readonly plan: PlanId
}

const NAME_MAX = 100

type TunnelRow = Selectable<Database['tunnels']>

/** The `Tunnel` of `row`. */
export function toTunnel(row: TunnelRow): Tunnel {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    subdomain: row.subdomain,
    createdAt: new Date(row.created_at),
    lastSeenAt: toDate(row.last_seen_at),
  }
}

/** The `TunnelStatus` of `row`, which the caller found `serving` or not. */
export function toStatus(row: TunnelRow, serving: boolean): TunnelStatus {
  return { ...toTunnel(row), serving, pinned: row.pinned !== 0 }
}

/**
 * A friendly name trimmed, or null when blank. Throws `StoreError` `invalid` when it is longer
 * than 100 characters or holds control characters (it is shown in terminals and pages).
 */
export function normaliseName(name: string | null | undefined): string | null {
  const trimmed = name?.trim() ?? ''
  if (trimmed === '') return null
  if (trimmed.length > NAME_MAX || /\p{Cc}/u.test(trimmed)) {
    throw new StoreError(
      'invalid',
      `tunnel name "${trimmed.slice(0, NAME_MAX)}" must be at most ${NAME_MAX} printable characters`,
    )
  }
  return trimmed
}
