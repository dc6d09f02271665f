/**
 * The store: every query burrowd makes, written once with Kysely and run unchanged on SQLite and
 * PostgreSQL (`openStore` picks the dialect). Accounts, sign-in and settings are here; tunnel
 * queries live in `tunnel-store.ts` and are called as `store.createTunnel` and so on; browser
 * sessions, API tokens and crash reports are reached as `store.webSessions`, `store.apiTokens`
 * and `store.crashReports`. Rows come back as camelCase objects with `Date` times; keys, tokens
 * and passwords exist only as hashes, and every plan returned is the plan in force now.
 */

import { labelProblem } from '@burrow/protocol'
import { isPlanId, PLAN_IDS } from '../plans.js'
import type { PlanId } from '../plans.js'
import type { Kysely } from 'kysely'
import { AccountTokenStore } from './account-token-store.js'
import { ApiTokenStore } from './api-token-store.js'
import { PolicyStore } from './policy-store.js'
import { ToolPinsStore } from './tool-pins-store.js'
import {
  hashPassword,
  PASSWORD_MAX,
  passwordProblem,
  TIMING_DECOY_HASH,
  verifyPassword,
} from './password.js'
import { WebSessionStore } from './web-session-store.js'
import { toAccount } from './account-row.js'
import type { Account } from './account-row.js'
import { CrashReportStore } from './crash-report-store.js'
import { newId } from './random-token.js'
import type { Database } from './schema.js'
import { canonicalEmail, emailLookupKey, isEmailAddress } from '../mail/email-address.js'
import { StoreError } from './store-error.js'
import type { DeletedTunnel, Tunnel, TunnelStatus, TunnelWithAccount } from './tunnel-row.js'
import { TunnelStore } from './tunnel-store.js'
import type { CreatedTunnel, NewTunnel } from './tunnel-store.js'
import { lockAccount } from './lock-account.js'
import { passwordStampOf } from './password-stamp.js'

export type { Account } from './account-row.js'
export type { DeletedTunnel, Tunnel, TunnelStatus, TunnelWithAccount } from './tunnel-row.js'
export type { CreatedTunnel, NewTunnel } from './tunnel-store.js'

/** Options of `new Store`. */
export interface StoreOptions {
  /** The clock for created-at times, expiries and plan ends (tests pass their own). */
  readonly now?: () => Date
  /** Runs after the Kysely instance is destroyed, to release what `openStore` opened. */
  readonly onClose?: () => void | Promise<void>
}

/** Queries over accounts, tunnels, sessions, tokens and settings; one instance per database. */
export class Store {
  /** The Kysely instance, for migrations and tests that inspect rows. */
  readonly db: Kysely<Database>
  /** Crash reports sent by clients (`crash-report-store.ts`). */
  readonly crashReports: CrashReportStore
  /** Signed-in browsers (`web-session-store.ts`). */
  readonly webSessions: WebSessionStore
  /** Bearer tokens for `/api/*` (`api-token-store.ts`). */
  readonly apiTokens: ApiTokenStore
  /** Tunnels' governance policies and their versions (`policy-store.ts`). */
  readonly policies: PolicyStore
  /** Rug-pull pins: tools' approved and current definitions, and approvals (`tool-pins-store.ts`). */
  readonly toolPins: ToolPinsStore
  /** Mailed reset and verification tokens, verified addresses (`account-token-store.ts`). */
  readonly accountTokens: AccountTokenStore
  readonly #tunnels: TunnelStore
  readonly #now: () => Date
  readonly #onClose: (() => void | Promise<void>) | undefined

  constructor(db: Kysely<Database>, options: StoreOptions = {}) {
    this.db = db
    this.#now = options.now ?? (() => new Date())
    this.#onClose = options.onClose
    this.crashReports = new CrashReportStore(db, this.#now)
    this.webSessions = new WebSessionStore(db, this.#now)
    this.apiTokens = new ApiTokenStore(db, this.#now)
    this.policies = new PolicyStore(db)
    this.toolPins = new ToolPinsStore(db)
    this.accountTokens = new AccountTokenStore(db, this.#now)
    this.#tunnels = new TunnelStore(db, this.#now)
  }

  /**
   * Create an account, with a password when given (stored as a scrypt hash; without one the
   * account cannot sign in until `setPassword`). The email is trimmed and lower-cased. Throws
   * `StoreError` `invalid` for a malformed email, slug, plan or password, and `conflict` when
   * the slug or email is taken.
   */
  async createAccount(input: {
    email: string
    slug: string
    plan?: PlanId
    password?: string
  }): Promise<Account> {
    const email = canonicalEmail(input.email)
    if (!isEmailAddress(email)) {
      throw new StoreError(
        'invalid',
        `email "${input.email}" is not one email address (name@example.com, without spaces, commas, quotes or angle brackets)`,
      )
    }
    const slugProblem = labelProblem('slug', input.slug)
    if (slugProblem !== null) throw new StoreError('invalid', slugProblem)
    const plan: string = input.plan ?? 'free'
    if (!isPlanId(plan)) {
      throw new StoreError('invalid', `plan "${plan}" is not one of ${PLAN_IDS.join(', ')}`)
    }
    const password = input.password === undefined ? null : await hashValid(input.password)

    const row = {
      id: newId('acc_'),
      email,
      slug: input.slug,
      plan,
      password_hash: password,
      created_at: this.#now().toISOString(),
    }
    const inserted = await this.db
      .insertInto('accounts')
      .values(row)
      .onConflict((oc) => oc.doNothing())
      .returningAll()
      .executeTakeFirst()
    if (inserted !== undefined) return toAccount(inserted, this.#now())
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
    return row && toAccount(row, this.#now())
  }

  /** The account with this id, if any. */
  async getAccountById(id: string): Promise<Account | undefined> {
    const row = await this.db
      .selectFrom('accounts')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst()
    return row && toAccount(row, this.#now())
  }

  /**
   * The account `email` (in any spelling: `canonicalEmail`) signs in to with `password`, or
   * undefined when the email is unknown, the account has no password, or the password is wrong.
   * All of those cost one scrypt verification, so timing does not tell which emails exist.
   */
  async verifyLogin(email: string, password: string): Promise<Account | undefined> {
    const key = emailLookupKey(email)
    const row =
      key === null
        ? undefined
        : await this.db
            .selectFrom('accounts')
            .selectAll()
            .where('email', '=', key)
            .executeTakeFirst()
    const stored = row?.password_hash ?? null
    // An over-long password cannot be anyone's; spend the same work without hashing megabytes.
    const tooLong = password.length > 2 * PASSWORD_MAX
    const ok = await verifyPassword(
      tooLong ? '' : password,
      stored === null || tooLong ? TIMING_DECOY_HASH : stored,
    )
    return ok && row !== undefined && stored !== null && !tooLong
      ? toAccount(row, this.#now())
      : undefined
  }

  /**
   * What names the current password of the account with `email` (a digest of its stored hash,
   * which changes with every new password), or an empty string when there is none: device
   * cookies are bound to it.
   */
  async passwordStamp(email: string): Promise<string> {
    const key = emailLookupKey(email)
    if (key === null) return passwordStampOf(undefined)
    const row = await this.db
      .selectFrom('accounts')
      .select('password_hash')
      .where('email', '=', key)
      .executeTakeFirst()
    return passwordStampOf(row?.password_hash)
  }

  /**
   * Set (or replace) account `accountId`'s password. Sessions stay signed in; end the others
   * with `webSessions.deleteForAccount`. With `replacing` (a change checked against the current
   * password: its `passwordStamp`), only while the password is still that one, so that a reset
   * meanwhile is not overwritten by a change its sender checked against the old password
   * (`StoreError` `conflict`). Returns the new password's stamp. Throws `StoreError` `invalid`
   * for a password `passwordProblem` refuses, `not_found` for an unknown account.
   */
  async setPassword(accountId: string, password: string, replacing?: string): Promise<string> {
    const hash = await hashValid(password)
    // Under the account's lock, in order with a sign-in making its session (`webSessions.create`
    // with the stamp of the password it checked): that session is made first and then ended with
    // the others, or refused.
    const result = await this.db.transaction().execute(async (trx) => {
      if ((await lockAccount(trx, accountId)) === undefined) return 0n
      if (replacing !== undefined) {
        const row = await trx
          .selectFrom('accounts')
          .select('password_hash')
          .where('id', '=', accountId)
          .executeTakeFirst()
        if (passwordStampOf(row?.password_hash) !== replacing) {
          throw new StoreError('conflict', 'the password changed meanwhile; try again')
        }
      }
      const updated = await trx
        .updateTable('accounts')
        .set({ password_hash: hash })
        .where('id', '=', accountId)
        .executeTakeFirst()
      return updated.numUpdatedRows
    })
    if (result === 0n) {
      throw new StoreError('not_found', `account "${accountId}" does not exist`)
    }
    return passwordStampOf(hash)
  }

  /**
   * Delete account `accountId` and everything it owns (tunnels, sessions, tokens, subscription
   * record, webhook endpoints: the foreign keys cascade). False when there was no such account.
   */
  async deleteAccount(accountId: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('accounts')
      .where('id', '=', accountId)
      .executeTakeFirst()
    return result.numDeletedRows > 0n
  }

  /**
   * Create a tunnel in an account with its `mtk_` key, returned here only (the store keeps its
   * hash), whatever the account's plan allows: for the operator's `burrowd tunnel create`, which
   * is trusted. Owners go through `createTunnelWithinPlan`. Without `subdomain` one is derived
   * from `name` when that gives a free label, else a random one is chosen. Throws `StoreError`
   * `not_found` for an unknown account, `invalid` for a bad name or subdomain, `conflict` when
   * the given subdomain is taken in the account.
   */
  createTunnel(input: NewTunnel): Promise<{ tunnel: Tunnel; key: string }> {
    return this.#tunnels.create(input)
  }

  /**
   * `createTunnel` for the account's owner: atomically checks that the account has fewer tunnels
   * than its plan (in force now) allows and inserts, so concurrent creates never exceed it.
   * Throws `StoreError` `plan_limit` (with `limit`) when the plan is full, and the errors of
   * `createTunnel` otherwise. `carriesOn` names the account's tunnel deleted this month whose
   * month of usage the new one carries on (`released-tunnels.ts`): the caller copies its counters.
   */
  createTunnelWithinPlan(input: NewTunnel): Promise<CreatedTunnel> {
    return this.#tunnels.createWithinPlan(input)
  }

  /**
   * Undo a `createTunnelWithinPlan` whose counters could not be carried on: delete the new
   * tunnel `tunnelId` of `accountId` and give back `carriedFrom`, the deleted tunnel it took.
   */
  undoCreateCarryingOn(accountId: string, tunnelId: string, carriedFrom: string): Promise<void> {
    return this.#tunnels.undoCreateCarryingOn(accountId, tunnelId, carriedFrom)
  }

  /**
   * The account's tunnels in serving order (pinned first, then oldest first), each saying
   * whether it serves under the plan in force now. Empty for an unknown account.
   */
  listTunnels(accountId: string): Promise<TunnelStatus[]> {
    return this.#tunnels.list(accountId)
  }

  /** Tunnel `tunnelId` if account `accountId` owns it, else undefined. */
  getTunnel(accountId: string, tunnelId: string): Promise<TunnelStatus | undefined> {
    return this.#tunnels.get(accountId, tunnelId)
  }

  /**
   * Set (or with null, clear) the friendly name of account `accountId`'s tunnel `tunnelId`; its
   * subdomain does not change. Throws `StoreError` `invalid` for a bad name, `not_found` when
   * the account has no such tunnel.
   */
  renameTunnel(accountId: string, tunnelId: string, name: string | null): Promise<Tunnel> {
    return this.#tunnels.rename(accountId, tunnelId, name)
  }

  /**
   * Give account `accountId`'s tunnel `tunnelId` a new `mtk_` key, returned here only; the old
   * key stops authenticating at once (a CLI already connected with it stays connected until it
   * reconnects). Throws `StoreError` `not_found` when the account has no such tunnel.
   */
  rotateTunnelKey(accountId: string, tunnelId: string): Promise<{ tunnel: Tunnel; key: string }> {
    return this.#tunnels.rotateKey(accountId, tunnelId)
  }

  /**
   * Delete account `accountId`'s tunnel `tunnelId` (and its call history) and return what it
   * was; its month of usage passes to the stopped tunnel that serves in its place now, if one
   * does (`startedServing`: the caller copies the counters), else to the account's next new
   * tunnel (`createTunnelWithinPlan`). Throws `StoreError` `not_found` when the account has no
   * such tunnel.
   */
  deleteTunnel(accountId: string, tunnelId: string): Promise<DeletedTunnel> {
    return this.#tunnels.delete(accountId, tunnelId)
  }

  /**
   * Leave deleted tunnel `tunnelId`'s month of usage to the account's next new tunnel after all:
   * the tunnel that started serving in its place could not be given it.
   */
  releaseDeletedTunnel(accountId: string, tunnelId: string): Promise<void> {
    return this.#tunnels.releaseDeleted(accountId, tunnelId)
  }

  /**
   * Pin exactly `tunnelIds` (and unpin the account's others), so that they serve first when the
   * account has more tunnels than its plan allows; returns the new `listTunnels`. Throws
   * `StoreError` `invalid` when the list is empty, longer than the plan's tunnel limit, or names
   * a tunnel the account does not own; `not_found` for an unknown account.
   */
  chooseServingTunnels(accountId: string, tunnelIds: readonly string[]): Promise<TunnelStatus[]> {
    return this.#tunnels.chooseServing(accountId, tunnelIds)
  }

  /**
   * The tunnel a key authenticates, with its account and whether it serves now; undefined for
   * unknown or malformed keys. One query.
   */
  findTunnelByKey(key: string): Promise<TunnelWithAccount | undefined> {
    return this.#tunnels.findByKey(key)
  }

  /** The tunnel named `<subdomain>--<slug>`, with its account and whether it serves now. */
  findTunnelByHost(subdomain: string, slug: string): Promise<TunnelWithAccount | undefined> {
    return this.#tunnels.findByHost(subdomain, slug)
  }

  /** Record that a tunnel was connected at `at`. A no-op when the tunnel no longer exists. */
  touchTunnel(id: string, at: Date): Promise<void> {
    return this.#tunnels.touch(id, at)
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

/** The hash of `password`, or `StoreError` `invalid` saying what is wrong with it. */
async function hashValid(password: string): Promise<string> {
  const problem = passwordProblem(password)
  if (problem !== null) throw new StoreError('invalid', problem)
  return hashPassword(password)
}
