/**
 * The store: every query burrowd makes about accounts, tunnels and settings (crash reports live
 * in `crash-report-store.ts`, reached as `store.crashReports`), written once with Kysely and run
 * unchanged on SQLite and PostgreSQL (`openStore` picks the dialect). Rows come back as camelCase
 * objects with `Date` times; tunnel keys exist only as hashes.
 */

import { hostLabelProblem, isPlanId, labelProblem, PLAN_IDS } from '@burrow/protocol'
import type { PlanId } from '@burrow/protocol'
import type { Kysely, Selectable } from 'kysely'
import { CrashReportStore } from './crash-report-store.js'
import { hashKey } from './hash-key.js'
import { newId, newTunnelKey, randomSubdomain, TUNNEL_KEY_PREFIX } from './random-token.js'
import type { AccountsTable, Database, TunnelsTable } from './schema.js'
import { StoreError } from './store-error.js'
import { subdomainFromName } from './subdomain-from-name.js'

/** A customer account. */
export interface Account {
  readonly id: string
  readonly email: string
  readonly slug: string
  readonly plan: PlanId
  readonly createdAt: Date
}

/** A tunnel: one public hostname and the key that may serve it. The key hash is not exposed. */
export interface Tunnel {
  readonly id: string
  readonly accountId: string
  readonly name: string | null
  readonly subdomain: string
  readonly createdAt: Date
  readonly lastSeenAt: Date | null
}

/** A tunnel with what routing and quotas need of its account. */
export interface TunnelWithAccount extends Tunnel {
  readonly accountSlug: string
  readonly plan: PlanId
}

/** Options of `new Store`. */
export interface StoreOptions {
  /** The clock for `createdAt` (tests pass a fixed one). */
  readonly now?: () => Date
  /** Runs after the Kysely instance is destroyed, to release what `openStore` opened. */
  readonly onClose?: () => void | Promise<void>
}

const EMAIL = /^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)*$/
const NAME_MAX = 100
/** Random subdomains tried before giving up (8 characters: collisions are rare). */
const RANDOM_ATTEMPTS = 8

/** Queries over accounts, tunnels and settings; one instance per database. */
export class Store {
  /** The Kysely instance, for migrations and tests that inspect rows. */
  readonly db: Kysely<Database>
  /** Crash reports sent by clients (`crash-report-store.ts`). */
  readonly crashReports: CrashReportStore
  readonly #now: () => Date
  readonly #onClose: (() => void | Promise<void>) | undefined

  constructor(db: Kysely<Database>, options: StoreOptions = {}) {
    this.db = db
    this.#now = options.now ?? (() => new Date())
    this.#onClose = options.onClose
    this.crashReports = new CrashReportStore(db, this.#now)
  }

  /**
   * Create an account. The email is trimmed and lower-cased. Throws `StoreError` `invalid` for a
   * malformed email, slug or plan, and `conflict` when the slug or email is taken.
   */
  async createAccount(input: { email: string; slug: string; plan?: PlanId }): Promise<Account> {
    const email = input.email.trim().toLowerCase()
    if (email.length > 254 || !EMAIL.test(email)) {
      throw new StoreError('invalid', `email "${input.email}" is not an email address`)
    }
    const slugProblem = labelProblem('slug', input.slug)
    if (slugProblem !== null) throw new StoreError('invalid', slugProblem)
    const plan: string = input.plan ?? 'free'
    if (!isPlanId(plan)) {
      throw new StoreError('invalid', `plan "${plan}" is not one of ${PLAN_IDS.join(', ')}`)
    }

    const row = {
      id: newId('acc_'),
      email,
      slug: input.slug,
      plan,
      created_at: this.#now().toISOString(),
    }
    const inserted = await this.db
      .insertInto('accounts')
      .values(row)
      .onConflict((oc) => oc.doNothing())
      .returningAll()
      .executeTakeFirst()
    if (inserted !== undefined) return toAccount(inserted)
    if ((await this.getAccountBySlug(row.slug)) !== undefined) {
      throw new StoreError('conflict', `account slug "${row.slug}" is taken`)
    }
    throw new StoreError('conflict', `an account with email "${email}" already exists`)
  }

  /** The account with this slug, if any. */
  async getAccountBySlug(slug: string): Promise<Account | undefined> {
    const row = await this.db
      .selectFrom('accounts')
      .selectAll()
      .where('slug', '=', slug)
      .executeTakeFirst()
    return row && toAccount(row)
  }

  /** The account with this id, if any. */
  async getAccountById(id: string): Promise<Account | undefined> {
    const row = await this.db
      .selectFrom('accounts')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst()
    return row && toAccount(row)
  }

  /**
   * Create a tunnel in an account and its `mtk_` key, returned here only (the store keeps its
   * hash). Without `subdomain` one is derived from `name` when that gives a free label, else a
   * random one is chosen. Throws `StoreError` `not_found` for an unknown account, `invalid` for a
   * bad name or subdomain, `conflict` when the given subdomain is taken in the account.
   */
  async createTunnel(input: {
    accountId: string
    name?: string | null
    subdomain?: string
  }): Promise<{ tunnel: Tunnel; key: string }> {
    const account = await this.getAccountById(input.accountId)
    if (account === undefined) {
      throw new StoreError('not_found', `account "${input.accountId}" does not exist`)
    }
    const name = normaliseName(input.name)

    if (input.subdomain !== undefined) {
      const problem =
        labelProblem('subdomain', input.subdomain) ??
        hostLabelProblem(input.subdomain, account.slug)
      if (problem !== null) throw new StoreError('invalid', problem)
      const created = await this.#insertTunnel(account.id, name, input.subdomain)
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
      const created = await this.#insertTunnel(account.id, name, fromName)
      if (created !== undefined) return created
    }
    for (let attempt = 0; attempt < RANDOM_ATTEMPTS; attempt++) {
      const created = await this.#insertTunnel(account.id, name, randomSubdomain())
      if (created !== undefined) return created
    }
    throw new Error(`no free random subdomain found in account "${account.slug}"`)
  }

  /** Insert a tunnel row with a fresh key, or return undefined when the subdomain is taken. */
  async #insertTunnel(
    accountId: string,
    name: string | null,
    subdomain: string,
  ): Promise<{ tunnel: Tunnel; key: string } | undefined> {
    const key = newTunnelKey()
    const row = await this.db
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

  /** The tunnel a key authenticates, with its account; undefined for unknown or malformed keys. */
  async findTunnelByKey(key: string): Promise<TunnelWithAccount | undefined> {
    if (!key.startsWith(TUNNEL_KEY_PREFIX)) return undefined
    const row = await this.#tunnelsWithAccount()
      .where('tunnels.key_hash', '=', hashKey(key))
      .executeTakeFirst()
    return row && toTunnelWithAccount(row)
  }

  /** The tunnel serving `<subdomain>--<slug>`, with its account, if any. */
  async findTunnelByHost(subdomain: string, slug: string): Promise<TunnelWithAccount | undefined> {
    const row = await this.#tunnelsWithAccount()
      .where('accounts.slug', '=', slug)
      .where('tunnels.subdomain', '=', subdomain)
      .executeTakeFirst()
    return row && toTunnelWithAccount(row)
  }

  #tunnelsWithAccount() {
    return this.db
      .selectFrom('tunnels')
      .innerJoin('accounts', 'accounts.id', 'tunnels.account_id')
      .selectAll('tunnels')
      .select(['accounts.slug as account_slug', 'accounts.plan as account_plan'])
  }

  /** Record that a tunnel was connected at `at`. A no-op when the tunnel no longer exists. */
  async touchTunnel(id: string, at: Date): Promise<void> {
    await this.db
      .updateTable('tunnels')
      .set({ last_seen_at: at.toISOString() })
      .where('id', '=', id)
      .execute()
  }

  /**
   * Set (or with null, clear) a tunnel's friendly name; its subdomain does not change.
   * Throws `StoreError` `invalid` for a bad name, `not_found` for an unknown tunnel.
   */
  async renameTunnel(id: string, name: string | null): Promise<Tunnel> {
    const row = await this.db
      .updateTable('tunnels')
      .set({ name: normaliseName(name) })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst()
    if (row === undefined) throw new StoreError('not_found', `tunnel "${id}" does not exist`)
    return toTunnel(row)
  }

  /** The value of a server-wide setting, if set. */
  async getSetting(key: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('settings')
      .select('value')
      .where('key', '=', key)
      .executeTakeFirst()
    return row?.value
  }

  /**
   * Store `value` under `key` unless a value is already there, and return the stored value.
   * Atomic across nodes: of concurrent callers, one value wins and all of them get it back.
   */
  async setSettingIfAbsent(key: string, value: string): Promise<string> {
    await this.db
      .insertInto('settings')
      .values({ key, value })
      .onConflict((oc) => oc.column('key').doNothing())
      .execute()
    const stored = await this.getSetting(key)
    if (stored === undefined) throw new Error(`setting "${key}" vanished after being stored`)
    return stored
  }

  /** Close the database connection(s). The store is unusable afterwards. */
  async close(): Promise<void> {
    await this.db.destroy()
    await this.#onClose?.()
  }
}

function normaliseName(name: string | null | undefined): string | null {
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

function toPlan(value: string, owner: string): PlanId {
  if (!isPlanId(value)) throw new Error(`${owner} has unknown plan "${value}" in the database`)
  return value
}

function toAccount(row: Selectable<AccountsTable>): Account {
  return {
    id: row.id,
    email: row.email,
    slug: row.slug,
    plan: toPlan(row.plan, `account ${row.id}`),
    createdAt: new Date(row.created_at),
  }
}

function toTunnel(row: Selectable<TunnelsTable>): Tunnel {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    subdomain: row.subdomain,
    createdAt: new Date(row.created_at),
    lastSeenAt: row.last_seen_at === null ? null : new Date(row.last_seen_at),
  }
}

function toTunnelWithAccount(
  row: Selectable<TunnelsTable> & { account_slug: string; account_plan: string },
): TunnelWithAccount {
  return {
    ...toTunnel(row),
    accountSlug: row.account_slug,
    plan: toPlan(row.account_plan, `account ${row.account_id}`),
  }
}
