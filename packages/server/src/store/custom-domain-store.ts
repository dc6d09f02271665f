/**
 * Custom domains in the database (`custom_domains`, migration 012): adding one to a tunnel within
 * the plan's allowance (under the account lock, so concurrent adds cannot exceed it), listing and
 * removing them for their owner, their DNS checks (`custom-domain-checks.ts`, migration 035: the
 * rows due for a re-check, claims, results in the order the checks began), and the verified
 * domain a public request's Host names. Every owner-facing method matches the owner's account id
 * in SQL: another account's domain behaves as an unknown one.
 */
import { randomBytes } from 'node:crypto'
import { sql, type Kysely } from 'kysely'
import { PLANS } from '../plans.js'
import { planInForce, toDate } from './account-row.js'
import {
  beginCheck,
  claimCheck,
  claimedError,
  dueDomains,
  recordCheck,
  releaseClaim,
  verifiedElsewhere,
  type CheckClaim,
  type RecordedCheck,
  type RetryDelay,
} from './custom-domain-checks.js'
import { toDomain } from './custom-domain-row.js'
import type { CheckOutcome, CustomDomain, DomainRoute } from './custom-domain-row.js'
import { lockAccount } from './lock-account.js'
import type { Database } from './schema.js'
import { StoreError } from './store-error.js'
import { tunnelsInServingOrder } from './tunnels-in-serving-order.js'

export type { CheckClaim, RecordedCheck, RetryDelay } from './custom-domain-checks.js'
export type {
  CheckOutcome,
  CustomDomain,
  CustomDomainState,
  DomainRoute,
} from './custom-domain-row.js'

/** How many custom domains `planId` allows an account: none, one, or one per tunnel. */
export function domainAllowance(planId: keyof typeof PLANS): number {
  const plan = PLANS[planId]
  if (!plan.customDomains) return 0
  return planId === 'pro' ? 1 : plan.tunnels
}

/** The `custom_domains` queries. */
export class CustomDomainStore {
  readonly #db: Kysely<Database>
  readonly #now: () => Date

  constructor(db: Kysely<Database>, now: () => Date = () => new Date()) {
    this.#db = db
    this.#now = now
  }

  /**
   * Add `domain` (already checked and canonical) to tunnel `tunnelId` of account `accountId`.
   * Throws StoreError `not_found` (no such tunnel in the account), `plan_limit` (the plan allows
   * none or no more), `conflict` (the tunnel has a domain, the account already added this one,
   * or another account has verified it).
   */
  async add(accountId: string, tunnelId: string, domain: string): Promise<CustomDomain> {
    return this.#db.transaction().execute(async (trx) => {
      const account = await lockAccount(trx, accountId)
      if (account === undefined) throw new StoreError('not_found', 'no such account')
      const tunnel = await trx
        .selectFrom('tunnels')
        .select(['id'])
        .where('id', '=', tunnelId)
        .where('account_id', '=', accountId)
        .executeTakeFirst()
      if (tunnel === undefined) throw new StoreError('not_found', 'no such tunnel in this account')
      const now = this.#now()
      const planId = planInForce(account.id, account.plan, toDate(account.plan_expires_at), now)
      const plan = PLANS[planId]
      const allowance = domainAllowance(planId)
      if (allowance === 0) {
        throw new StoreError(
          'plan_limit',
          `custom domains need the Pro or Scale plan; the ${plan.name} plan has none. ` +
            'Upgrade your plan to add one',
          { limit: 0 },
        )
      }
      const mine = await trx
        .selectFrom('custom_domains')
        .select(['domain', 'tunnel_id'])
        .where('account_id', '=', accountId)
        .execute()
      const onTunnel = mine.find((d) => d.tunnel_id === tunnelId)
      if (onTunnel !== undefined) {
        throw new StoreError(
          'conflict',
          `this tunnel already has the custom domain ${onTunnel.domain}; a tunnel carries one, so remove it first`,
        )
      }
      if (mine.some((d) => d.domain === domain)) {
        throw new StoreError(
          'conflict',
          `${domain} is already added to another tunnel of this account`,
        )
      }
      if (mine.length >= allowance) {
        throw new StoreError(
          'plan_limit',
          `the ${plan.name} plan allows ${allowance} custom domain${allowance === 1 ? '' : 's'} ` +
            `and this account has ${mine.length}; upgrade to Scale for one per tunnel, or remove one`,
          { limit: allowance },
        )
      }
      if (await verifiedElsewhere(trx, domain, accountId)) throw claimedError(domain)
      const row = await trx
        .insertInto('custom_domains')
        .values({
          id: `dom_${randomBytes(10).toString('hex')}`,
          domain,
          tunnel_id: tunnelId,
          account_id: accountId,
          token: `burrow-verify-${randomBytes(16).toString('hex')}`,
          state: 'pending',
          created_at: now.toISOString(),
        })
        .returningAll()
        .executeTakeFirstOrThrow()
      return toDomain(row)
    })
  }

  /** The domains of tunnel `tunnelId` in account `accountId` (at most one). */
  async list(accountId: string, tunnelId: string): Promise<CustomDomain[]> {
    const rows = await this.#db
      .selectFrom('custom_domains')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('tunnel_id', '=', tunnelId)
      .orderBy('created_at')
      .execute()
    return rows.map(toDomain)
  }

  /** Every domain of account `accountId`, oldest first. */
  async listAccount(accountId: string): Promise<CustomDomain[]> {
    const rows = await this.#db
      .selectFrom('custom_domains')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('created_at')
      .orderBy('id')
      .execute()
    return rows.map(toDomain)
  }

  /** Domain `domain` of tunnel `tunnelId` in account `accountId`, if any. */
  async get(
    accountId: string,
    tunnelId: string,
    domain: string,
  ): Promise<CustomDomain | undefined> {
    const row = await this.#db
      .selectFrom('custom_domains')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('tunnel_id', '=', tunnelId)
      .where('domain', '=', domain)
      .executeTakeFirst()
    return row && toDomain(row)
  }

  /** Remove a domain; false when the account's tunnel has no such domain. */
  async remove(accountId: string, tunnelId: string, domain: string): Promise<boolean> {
    const deleted = await this.#db
      .deleteFrom('custom_domains')
      .where('account_id', '=', accountId)
      .where('tunnel_id', '=', tunnelId)
      .where('domain', '=', domain)
      .executeTakeFirst()
    return Number(deleted.numDeletedRows) > 0
  }

  /** The domains due for a re-check at `now` (see `dueDomains`). */
  async due(
    now: Date,
    pendingMs: number,
    verifiedMs: number,
    limit: number,
  ): Promise<CustomDomain[]> {
    return dueDomains(this.#db, now, pendingMs, verifiedMs, limit)
  }

  /** Begin the owner's check of domain `id`: its number, or undefined when it is gone. */
  async beginCheck(id: string): Promise<number | undefined> {
    return beginCheck(this.#db, id)
  }

  /** Take due domain `d` for a scheduled check at `at` (see `claimCheck`); null when taken. */
  async claimCheck(d: CustomDomain, at: Date): Promise<CheckClaim | null> {
    return claimCheck(this.#db, d, at)
  }

  /** A claimed check of `id` failed at `at`: due again after `delay` (see `releaseClaim`). */
  async releaseClaim(
    id: string,
    claim: CheckClaim,
    at: Date,
    delay: RetryDelay,
  ): Promise<Date | null> {
    return releaseClaim(this.#db, id, claim, at, delay)
  }

  /** Store what check number `check` of `id` found at `at`, unless a later one's is stored. */
  async recordCheck(
    id: string,
    outcome: CheckOutcome,
    at: Date,
    check: number,
  ): Promise<RecordedCheck | undefined> {
    return recordCheck(this.#db, id, outcome, at, check)
  }

  /** The host label parts of tunnel `tunnelId`, or undefined when it is gone. */
  async tunnelHost(tunnelId: string): Promise<{ subdomain: string; slug: string } | undefined> {
    return this.#db
      .selectFrom('tunnels')
      .innerJoin('accounts', 'accounts.id', 'tunnels.account_id')
      .select(['tunnels.subdomain as subdomain', 'accounts.slug as slug'])
      .where('tunnels.id', '=', tunnelId)
      .executeTakeFirst()
  }

  /** The verified domain `domain` with its tunnel's host parts, or `pending` when only unverified rows name it, or undefined. */
  async route(domain: string): Promise<DomainRoute | 'pending' | undefined> {
    const row = await this.#db
      .selectFrom('custom_domains')
      .innerJoin('tunnels', 'tunnels.id', 'custom_domains.tunnel_id')
      .innerJoin('accounts', 'accounts.id', 'custom_domains.account_id')
      .select([
        'custom_domains.id as id',
        'custom_domains.state as state',
        'custom_domains.account_id as account_id',
        'tunnels.subdomain as subdomain',
        'accounts.slug as slug',
      ])
      .where('custom_domains.domain', '=', domain)
      .orderBy(sql`case when custom_domains.state = 'verified' then 0 else 1 end`)
      .executeTakeFirst()
    if (row === undefined) return undefined
    if (row.state !== 'verified') return 'pending'
    const ranks = await this.ranks(row.account_id)
    return {
      domainId: row.id,
      accountId: row.account_id,
      subdomain: row.subdomain,
      slug: row.slug,
      rank: ranks.get(row.id) ?? ranks.size,
    }
  }

  /**
   * The rank of each of the account's domains in its plan's allowance: its verified domains on
   * tunnels that serve, oldest first (0, 1, …); the others are not ranked. A smaller plan serves
   * the first ones. Before, every domain of the account was ranked, pending ones and those of
   * stopped tunnels too, so after a downgrade from Scale to Pro an older pending domain, or one
   * on a tunnel the plan no longer serves, took the one place, and the verified domain of a
   * serving tunnel was refused (found by a hostile review).
   */
  async ranks(accountId: string): Promise<ReadonlyMap<string, number>> {
    const serving = new Set(
      (await tunnelsInServingOrder(this.#db, accountId, this.#now()))
        .filter((t) => t.serving)
        .map((t) => t.id),
    )
    const verified = await this.#db
      .selectFrom('custom_domains')
      .select(['id', 'tunnel_id'])
      .where('account_id', '=', accountId)
      .where('state', '=', 'verified')
      .orderBy('created_at')
      .orderBy('id')
      .execute()
    const ranks = new Map<string, number>()
    for (const d of verified) if (serving.has(d.tunnel_id)) ranks.set(d.id, ranks.size)
    return ranks
  }
}
