/**
 * Queries about tunnels: creating them (within the plan's limit, or unlimited for the operator),
 * listing, renaming, re-keying and deleting them on behalf of their owner, choosing which serve
 * after a downgrade, and finding the tunnel a key or a hostname names. Reached through `Store`
 * (`store.listTunnels` …), which delegates here.
 *
 * Every owner-facing method takes the owner's account id and matches on it in SQL, so one account
 * can never see or change another's tunnel: a foreign id behaves exactly like an unknown one.
 *
 * Serving: an account may hold more tunnels than its plan allows (after a downgrade). Tunnels
 * are ranked pinned first, then oldest first (id breaks ties); the first `PLANS[plan].tunnels`
 * serve and the rest are refused at the edge until the owner upgrades, deletes or re-chooses.
 */

import { hostLabelProblem, labelProblem } from '@burrow/protocol'
import { PLANS } from '../plans.js'
import type { Plan, PlanId } from '../plans.js'
import { sql } from 'kysely'
import type { Kysely, Selectable } from 'kysely'
import { planInForce, toDate } from './account-row.js'
import { releaseTunnel, takeReleasedTunnel } from './released-tunnels.js'
import { hashKey } from './hash-key.js'
import { lockAccount } from './lock-account.js'
import type { LockedAccount } from './lock-account.js'
import { newId, newTunnelKey, randomSubdomain, TUNNEL_KEY_PREFIX } from './random-token.js'
import type { Database } from './schema.js'
import { StoreError } from './store-error.js'
import { subdomainFromName } from './subdomain-from-name.js'
import { deleteHistory } from './tunnel-history-batches.js'
import { tunnelsInServingOrder } from './tunnels-in-serving-order.js'
import { normaliseName, toStatus, toTunnel } from './tunnel-row.js'
import type { DeletedTunnel, Tunnel, TunnelStatus, TunnelWithAccount } from './tunnel-row.js'

/**
 * A tunnel an owner created: with its key, and the deleted tunnel of the same month whose usage
 * it carries on (`released-tunnels.ts`), or null.
 */
export interface CreatedTunnel {
  readonly tunnel: Tunnel
  readonly key: string
  readonly carriesOn: string | null
}

/** What a new tunnel may specify. */
export interface NewTunnel {
  readonly accountId: string
  readonly name?: string | null
  readonly subdomain?: string
}

/** Random subdomains tried before giving up (8 characters: collisions are rare). */
const RANDOM_ATTEMPTS = 8

type RankedRow = Selectable<Database['tunnels']> & {
  account_slug: string
  account_plan: string
  account_plan_expires_at: string | null
  /** Count of the account's tunnels before this one in serving order (bigint text on pg). */
  rank: number | string
}

/** Tunnel queries over one database; see the file header. */
export class TunnelStore {
  readonly #db: Kysely<Database>
  readonly #now: () => Date

  constructor(db: Kysely<Database>, now: () => Date) {
    this.#db = db
    this.#now = now
  }

  /** See `Store#createTunnel`: no plan limit (the operator's command). */
  async create(input: NewTunnel): Promise<{ tunnel: Tunnel; key: string }> {
    const account = await this.#db
      .selectFrom('accounts')
      .select(['id', 'slug'])
      .where('id', '=', input.accountId)
      .executeTakeFirst()
    if (account === undefined) throw accountNotFound(input.accountId)
    return this.#insert(this.#db, account, input)
  }

  /** See `Store#createTunnelWithinPlan`. */
  async createWithinPlan(input: NewTunnel): Promise<CreatedTunnel> {
    // Validate before taking the lock, so bad input never queues behind other creates.
    normaliseName(input.name)
    return this.#db.transaction().execute(async (trx) => {
      const account = await lockAccount(trx, input.accountId)
      if (account === undefined) throw accountNotFound(input.accountId)
      const plan = this.#planOf(account)
      const { count } = await trx
        .selectFrom('tunnels')
        .select((eb) => eb.fn.countAll<number | string | bigint>().as('count'))
        .where('account_id', '=', account.id)
        .executeTakeFirstOrThrow()
      if (Number(count) >= plan.tunnels) {
        throw new StoreError(
          'plan_limit',
          `the ${plan.name} plan allows ${tunnelCount(plan.tunnels)} and account "${account.slug}" ` +
            `has ${Number(count)}; upgrade your plan or delete tunnels to create more`,
          { limit: plan.tunnels },
        )
      }
      const created = await this.#insert(trx, account, input)
      const carriesOn = await takeReleasedTunnel(trx, account.id, this.#now())
      return { ...created, carriesOn }
    })
  }

  /**
   * See `Store#undoCreateCarryingOn`: delete `tunnelId` (not released) and release `carriedFrom`
   * again, at once.
   */
  async undoCreateCarryingOn(
    accountId: string,
    tunnelId: string,
    carriedFrom: string,
  ): Promise<void> {
    await this.#db.transaction().execute(async (trx) => {
      await trx
        .deleteFrom('tunnels')
        .where('id', '=', tunnelId)
        .where('account_id', '=', accountId)
        .execute()
      await releaseTunnel(trx, accountId, carriedFrom, this.#now())
    })
  }

  /** See `Store#listTunnels`. */
  async list(accountId: string): Promise<TunnelStatus[]> {
    return tunnelsInServingOrder(this.#db, accountId, this.#now())
  }

  /** See `Store#getTunnel`. */
  async get(accountId: string, tunnelId: string): Promise<TunnelStatus | undefined> {
    const row = await this.#withAccountAndRank()
      .where('tunnels.id', '=', tunnelId)
      .where('tunnels.account_id', '=', accountId)
      .executeTakeFirst()
    return row && toStatus(row, this.#ranked(row).serving)
  }

  /** See `Store#renameTunnel`. */
  async rename(accountId: string, tunnelId: string, name: string | null): Promise<Tunnel> {
    const row = await this.#db
      .updateTable('tunnels')
      .set({ name: normaliseName(name) })
      .where('id', '=', tunnelId)
      .where('account_id', '=', accountId)
      .returningAll()
      .executeTakeFirst()
    if (row === undefined) throw tunnelNotFound(tunnelId)
    return toTunnel(row)
  }

  /** See `Store#rotateTunnelKey`. */
  async rotateKey(accountId: string, tunnelId: string): Promise<{ tunnel: Tunnel; key: string }> {
    const key = newTunnelKey()
    // Under the account's lock, which checks the credential the request acts with again: a key
    // is a credential.
    const row = await this.#db.transaction().execute(async (trx) => {
      await lockAccount(trx, accountId)
      return trx
        .updateTable('tunnels')
        .set({ key_hash: hashKey(key) })
        .where('id', '=', tunnelId)
        .where('account_id', '=', accountId)
        .returningAll()
        .executeTakeFirst()
    })
    if (row === undefined) throw tunnelNotFound(tunnelId)
    return { tunnel: toTunnel(row), key }
  }

  /** See `Store#deleteTunnel`. */
  async delete(accountId: string, tunnelId: string): Promise<DeletedTunnel> {
    const owned = await this.#db
      .selectFrom('tunnels')
      .select('id')
      .where('id', '=', tunnelId)
      .where('account_id', '=', accountId)
      .executeTakeFirst()
    if (owned === undefined) throw tunnelNotFound(tunnelId)
    // Its history first, in batches: the cascade then deletes only what was written meanwhile.
    await deleteHistory(this.#db, tunnelId)
    const done = await this.#db.transaction().execute(async (trx) => {
      // Locked like a create: which tunnels serve is read before and after, unchanged meanwhile.
      await lockAccount(trx, accountId)
      const now = this.#now()
      const before = await tunnelsInServingOrder(trx, accountId, now)
      const deleted = await trx
        .deleteFrom('tunnels')
        .where('id', '=', tunnelId)
        .where('account_id', '=', accountId)
        .returningAll()
        .executeTakeFirst()
      if (deleted === undefined) return undefined
      // Over its plan, the next stopped tunnel serves in its place and carries on its month.
      const served = new Set(before.filter((t) => t.serving).map((t) => t.id))
      const started = served.has(tunnelId)
        ? (await tunnelsInServingOrder(trx, accountId, now)).find(
            (t) => t.serving && !served.has(t.id),
          )
        : undefined
      if (started === undefined) await releaseTunnel(trx, accountId, tunnelId, now)
      return { deleted, startedServing: started?.id ?? null }
    })
    if (done === undefined) throw tunnelNotFound(tunnelId)
    return { ...toTunnel(done.deleted), startedServing: done.startedServing }
  }

  /** See `Store#releaseDeletedTunnel`. */
  async releaseDeleted(accountId: string, tunnelId: string): Promise<void> {
    await releaseTunnel(this.#db, accountId, tunnelId, this.#now())
  }

  /** See `Store#chooseServingTunnels`. */
  async chooseServing(accountId: string, tunnelIds: readonly string[]): Promise<TunnelStatus[]> {
    const chosen = [...new Set(tunnelIds)]
    const odd = chosen.find((id) => !/^[\w-]{1,64}$/.test(id)) // no tunnel's id (U+0000: a PG error)
    if (odd !== undefined) throw tunnelNotFound(odd, 'invalid')
    if (chosen.length === 0) {
      throw new StoreError('invalid', 'choose at least one tunnel to keep serving')
    }
    return this.#db.transaction().execute(async (trx) => {
      // Locked like a create, so a concurrent create cannot slip in between check and update.
      const account = await lockAccount(trx, accountId)
      if (account === undefined) throw accountNotFound(accountId)
      const plan = this.#planOf(account)
      if (chosen.length > plan.tunnels) {
        throw new StoreError(
          'invalid',
          `the ${plan.name} plan serves at most ${tunnelCount(plan.tunnels)}; ` +
            `choose at most ${plan.tunnels}, or upgrade your plan to serve more`,
          { limit: plan.tunnels },
        )
      }
      const owned = await trx
        .selectFrom('tunnels')
        .select('id')
        .where('account_id', '=', accountId)
        .where('id', 'in', chosen)
        .execute()
      const ownedIds = new Set(owned.map((row) => row.id))
      const foreign = chosen.find((id) => !ownedIds.has(id))
      if (foreign !== undefined) throw tunnelNotFound(foreign, 'invalid')
      await trx
        .updateTable('tunnels')
        .set((eb) => ({ pinned: eb.case().when('id', 'in', chosen).then(1).else(0).end() }))
        .where('account_id', '=', accountId)
        .execute()
      return tunnelsInServingOrder(trx, accountId, this.#now())
    })
  }

  /** See `Store#findTunnelByKey`. */
  async findByKey(key: string): Promise<TunnelWithAccount | undefined> {
    // Keys are 47 characters; anything much longer is not worth hashing.
    if (!key.startsWith(TUNNEL_KEY_PREFIX) || key.length > 200) return undefined
    const row = await this.#withAccountAndRank()
      .where('tunnels.key_hash', '=', hashKey(key))
      .executeTakeFirst()
    return row && this.#toTunnelWithAccount(row)
  }

  /** See `Store#findTunnelByHost`. */
  async findByHost(subdomain: string, slug: string): Promise<TunnelWithAccount | undefined> {
    const row = await this.#withAccountAndRank()
      .where('accounts.slug', '=', slug)
      .where('tunnels.subdomain', '=', subdomain)
      .executeTakeFirst()
    return row && this.#toTunnelWithAccount(row)
  }

  /** See `Store#touchTunnel`. */
  async touch(id: string, at: Date): Promise<void> {
    await this.#db
      .updateTable('tunnels')
      .set({ last_seen_at: at.toISOString() })
      .where('id', '=', id)
      .execute()
  }

  /**
   * Insert a tunnel for `account` (subdomain rules of `Store#createTunnel`), through `db`, which
   * may be a transaction.
   */
  async #insert(
    db: Kysely<Database>,
    account: { id: string; slug: string },
    input: NewTunnel,
  ): Promise<{ tunnel: Tunnel; key: string }> {
    const name = normaliseName(input.name)
    if (input.subdomain !== undefined) {
      const problem =
        labelProblem('subdomain', input.subdomain) ??
        hostLabelProblem(input.subdomain, account.slug)
      if (problem !== null) throw new StoreError('invalid', problem)
      const created = await this.#insertRow(db, account.id, name, input.subdomain)
      if (created === undefined) {
        throw new StoreError(
          'conflict',
          `subdomain "${input.subdomain}" is taken in account "${account.slug}"; choose another`,
        )
      }
      return created
    }

    const fromName = name === null ? null : subdomainFromName(name, account.slug)
    if (fromName !== null) {
      const created = await this.#insertRow(db, account.id, name, fromName)
      if (created !== undefined) return created
    }
    for (let attempt = 0; attempt < RANDOM_ATTEMPTS; attempt++) {
      const created = await this.#insertRow(db, account.id, name, randomSubdomain())
      if (created !== undefined) return created
    }
    throw new Error(`no free random subdomain found in account "${account.slug}"`)
  }

  /** Insert a tunnel row with a fresh key, or return undefined when the subdomain is taken. */
  async #insertRow(
    db: Kysely<Database>,
    accountId: string,
    name: string | null,
    subdomain: string,
  ): Promise<{ tunnel: Tunnel; key: string } | undefined> {
    const key = newTunnelKey()
    // DO NOTHING rather than catching the violation: in PostgreSQL a failed statement would
    // abort the surrounding transaction.
    const row = await db
      .insertInto('tunnels')
      .values({
        id: newId('tun_'),
        account_id: accountId,
        name,
        subdomain,
        key_hash: hashKey(key),
        created_at: this.#now().toISOString(),
      })
      .onConflict((oc) => oc.doNothing())
      .returningAll()
      .executeTakeFirst()
    return row && { tunnel: toTunnel(row), key }
  }

  /**
   * Tunnels joined with their account, plus `rank`: how many of the account's tunnels come
   * before this one in serving order. One query, so the edge's lookup stays a single round trip;
   * the count walks the account's own tunnels only (index on account_id), at most a few dozen.
   */
  #withAccountAndRank() {
    return this.#db
      .selectFrom('tunnels')
      .innerJoin('accounts', 'accounts.id', 'tunnels.account_id')
      .selectAll('tunnels')
      .select([
        'accounts.slug as account_slug',
        'accounts.plan as account_plan',
        'accounts.plan_expires_at as account_plan_expires_at',
        sql<number | string>`(
          select count(*) from tunnels as ahead
          where ahead.account_id = tunnels.account_id
            and (1 - ahead.pinned, ahead.created_at, ahead.id)
              < (1 - tunnels.pinned, tunnels.created_at, tunnels.id)
        )`.as('rank'),
      ])
  }

  #toTunnelWithAccount(row: RankedRow): TunnelWithAccount {
    const { plan, serving } = this.#ranked(row)
    return { ...toStatus(row, serving), accountSlug: row.account_slug, plan }
  }

  /** The account's plan in force now, and whether the tunnel's rank is within its limit. */
  #ranked(row: RankedRow): { plan: PlanId; serving: boolean } {
    const expires = toDate(row.account_plan_expires_at)
    const plan = planInForce(row.account_id, row.account_plan, expires, this.#now())
    return { plan, serving: Number(row.rank) < PLANS[plan].tunnels }
  }

  #planOf(account: LockedAccount): Plan {
    return PLANS[
      planInForce(account.id, account.plan, toDate(account.plan_expires_at), this.#now())
    ]
  }
}

function tunnelCount(n: number): string {
  return n === 1 ? '1 tunnel' : `${n} tunnels`
}

function accountNotFound(accountId: string): StoreError {
  return new StoreError('not_found', `account "${accountId}" does not exist`)
}

/** The same answer whether the tunnel does not exist or belongs to another account. */
function tunnelNotFound(tunnelId: string, code: 'not_found' | 'invalid' = 'not_found'): StoreError {
  return new StoreError(code, `tunnel "${tunnelId}" does not exist in this account`)
}
