/**
 * Signed-in browsers. The cookie carries a random secret; the `web_sessions` row is keyed by its
 * SHA-256, so a leaked database holds no usable cookie. Each session has a CSRF token that the
 * web layer requires on every state-changing request, and a sliding expiry: a session in use
 * lives on, an abandoned one ends `ttlMs` after its last renewal. Reached as `store.webSessions`.
 */

import { randomBytes } from 'node:crypto'
import type { Kysely } from 'kysely'
import { deleteInBatches, PURGE_BATCH_ROWS } from './delete-in-batches.js'
import { hashKey } from './hash-key.js'
import { newSecret } from './random-token.js'
import type { Database } from './schema.js'
import { StoreError } from './store-error.js'
import { lockAccount } from './lock-account.js'
import { passwordStampOf } from './password-stamp.js'

/** How long a session lasts without use: 30 days. */
export const WEB_SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000

/** A session as the web layer needs it on each request. */
export interface WebSession {
  readonly accountId: string
  /** Every state-changing form and dashboard call must echo it. */
  readonly csrfToken: string
  /** When the session ends unless renewed; set the cookie's expiry to it. */
  readonly expiresAt: Date
}

/** Session tokens are 43 characters of base64url; anything else is not worth a query. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/

/** Queries over `web_sessions`. */
export class WebSessionStore {
  readonly #db: Kysely<Database>
  readonly #now: () => Date
  readonly #ttlMs: number

  constructor(db: Kysely<Database>, now: () => Date, ttlMs = WEB_SESSION_TTL_MS) {
    this.#db = db
    this.#now = now
    this.#ttlMs = ttlMs
  }

  /**
   * Sign account `accountId` in: a new session whose `token` goes in the cookie (returned only
   * here). With `passwordStamp` (a sign-in: the stamp of the password it checked), only while
   * the account's password is still that one, under the account's lock, so that a reset
   * meanwhile either ends this session with the others or refuses it (`StoreError`
   * `unauthorized`). Throws `StoreError` `not_found` for an unknown account.
   */
  async create(
    accountId: string,
    passwordStamp?: string,
  ): Promise<{ token: string; csrfToken: string; expiresAt: Date }> {
    const token = newSecret()
    const csrfToken = randomBytes(24).toString('base64url')
    const now = this.#now()
    const expiresAt = new Date(now.getTime() + this.#ttlMs)
    await this.#db.transaction().execute(async (trx) => {
      if ((await lockAccount(trx, accountId)) === undefined) {
        throw new StoreError('not_found', `account "${accountId}" does not exist`)
      }
      if (passwordStamp !== undefined) {
        const row = await trx
          .selectFrom('accounts')
          .select('password_hash')
          .where('id', '=', accountId)
          .executeTakeFirst()
        if (passwordStampOf(row?.password_hash) !== passwordStamp) {
          throw new StoreError('unauthorized', 'the password changed meanwhile; sign in again')
        }
      }
      await trx
        .insertInto('web_sessions')
        .values({
          id: hashKey(token),
          account_id: accountId,
          csrf_token: csrfToken,
          created_at: now.toISOString(),
          expires_at: expiresAt.toISOString(),
        })
        .execute()
    })
    return { token, csrfToken, expiresAt }
  }

  /**
   * The live session `token` names, or undefined when it is unknown, malformed or expired. When
   * less than half its lifetime remains the expiry moves to a full lifetime from now (and the
   * returned `expiresAt` says so), so a session in daily use never ends.
   */
  async find(token: string): Promise<WebSession | undefined> {
    if (!TOKEN.test(token)) return undefined
    const id = hashKey(token)
    const row = await this.#db
      .selectFrom('web_sessions')
      .select(['account_id', 'csrf_token', 'expires_at'])
      .where('id', '=', id)
      .executeTakeFirst()
    if (row === undefined) return undefined
    const now = this.#now()
    let expiresAt = new Date(row.expires_at)
    if (expiresAt.getTime() <= now.getTime()) return undefined
    if (expiresAt.getTime() - now.getTime() < this.#ttlMs / 2) {
      expiresAt = new Date(now.getTime() + this.#ttlMs)
      await this.#db
        .updateTable('web_sessions')
        .set({ expires_at: expiresAt.toISOString() })
        .where('id', '=', id)
        .execute()
    }
    return { accountId: row.account_id, csrfToken: row.csrf_token, expiresAt }
  }

  /** Sign out the session `token` names; a no-op for an unknown token. */
  async delete(token: string): Promise<void> {
    if (!TOKEN.test(token)) return
    await this.#db.deleteFrom('web_sessions').where('id', '=', hashKey(token)).execute()
  }

  /**
   * Sign out every session of account `accountId` (after a password change, say), except the
   * one `keepToken` names if given (the browser that made the change). Returns how many ended.
   */
  async deleteForAccount(accountId: string, keepToken?: string): Promise<number> {
    let query = this.#db.deleteFrom('web_sessions').where('account_id', '=', accountId)
    if (keepToken !== undefined) query = query.where('id', '!=', hashKey(keepToken))
    const result = await query.executeTakeFirst()
    return Number(result.numDeletedRows)
  }

  /**
   * Remove expired sessions (they are already refused); returns how many. Run periodically. In
   * statements of at most `batchRows` rows: the first purge after an upgrade meets every expired
   * session ever made, and one statement for them all held SQLite's event loop, or outlasted
   * PostgreSQL's bound and failed on every run.
   */
  async purgeExpired(batchRows: number = PURGE_BATCH_ROWS): Promise<number> {
    const cutoff = this.#now().toISOString()
    return deleteInBatches(batchRows, async (limit) => {
      const result = await this.#db
        .deleteFrom('web_sessions')
        .where('id', 'in', (eb) =>
          eb.selectFrom('web_sessions').select('id').where('expires_at', '<=', cutoff).limit(limit),
        )
        .executeTakeFirst()
      return Number(result.numDeletedRows)
    })
  }
}
