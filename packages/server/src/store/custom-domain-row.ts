/**
 * Custom domains as the store returns them, and how a `custom_domains` row becomes one:
 * camelCase, `Date` times, the state as a union.
 */
import type { Selectable } from 'kysely'
import { toDate } from './account-row.js'
import type { Database } from './schema.js'

/** Where a domain stands: waiting for its DNS records, or proven and served. */
export type CustomDomainState = 'pending' | 'verified'

/** A custom domain as the store returns it. */
export interface CustomDomain {
  readonly id: string
  /** ASCII (punycode), lower-case. */
  readonly domain: string
  readonly tunnelId: string
  readonly accountId: string
  /** The value the TXT record `_burrow-challenge.<domain>` must hold. */
  readonly token: string
  readonly state: CustomDomainState
  readonly createdAt: Date
  readonly checkedAt: Date | null
  readonly verifiedAt: Date | null
  /** When a verified domain's records were first found missing; null while they are found. */
  readonly failingSince: Date | null
  /** What the last check found wrong. */
  readonly problem: string | null
  /** How many checks of it have begun; a scheduled check claims it only while this is unchanged. */
  readonly checksBegun: number
}

/** A verified domain as routing needs it. */
export interface DomainRoute {
  readonly domainId: string
  readonly accountId: string
  /** The tunnel's host label parts. */
  readonly subdomain: string
  readonly slug: string
  /** How many of the account's domains were added before this one (the allowance counts them). */
  readonly rank: number
}

/** What a check found, to record. */
export type CheckOutcome =
  | { readonly kind: 'verified' }
  /**
   * Records missing: a verified domain failing for `lapseAfterMs` (since its `failing_since` as
   * stored, not as the check's caller last read it) returns to pending.
   */
  | { readonly kind: 'failed'; readonly problem: string; readonly lapseAfterMs: number }
  /** The resolver did not answer: nothing is known about the records. */
  | { readonly kind: 'unanswered'; readonly problem: string }

type Row = Selectable<Database['custom_domains']>

/** The `CustomDomain` of `row`. */
export function toDomain(row: Row): CustomDomain {
  return {
    id: row.id,
    domain: row.domain,
    tunnelId: row.tunnel_id,
    accountId: row.account_id,
    token: row.token,
    state: row.state === 'verified' ? 'verified' : 'pending',
    createdAt: new Date(row.created_at),
    checkedAt: toDate(row.checked_at),
    verifiedAt: toDate(row.verified_at),
    failingSince: toDate(row.failing_since),
    problem: row.problem,
    checksBegun: Number(row.checks_begun),
  }
}
