/**
 * The single-use tokens Burrow mails to get back into an account: a password reset (`reset`)
 * or the confirmation of the account's email address (`verify`). The link carries a random
 * secret; the `account_tokens` row is keyed by its SHA-256, so a leaked database holds no usable
 * link. A token works once (using it is one conditional UPDATE, so two concurrent uses cannot
 * both succeed) and only until it expires; issuing a new one of a purpose voids the older ones,
 * or all but the newest few that are still live when the caller asks to keep some.
 * Also the accounts' email lookup and verified flag. Reached as `store.accountTokens`.
 */
import type { Kysely } from 'kysely'
import { emailLookupKey } from '../mail/email-address.js'
import { hashKey } from './hash-key.js'
import { newSecret } from './random-token.js'
import type { Database } from './schema.js'

/** What a mailed token is for. */
export type AccountTokenPurpose = 'reset' | 'verify'

/** How long a password-reset link works: one hour. */
export const RESET_TOKEN_TTL_MS = 60 * 60 * 1000
/** How long an email-verification link works: three days. */
export const VERIFY_TOKEN_TTL_MS = 3 * 24 * 60 * 60 * 1000

/** The account and address a valid token names. */
export interface AccountTokenHolder {
  readonly accountId: string
  readonly email: string
}

/** Token secrets are 43 characters of base64url; anything else is not worth a query. */
const SECRET = /^[A-Za-z0-9_-]{43}$/

/** Queries over `account_tokens` and the accounts' verified addresses. */
export class AccountTokenStore {
  readonly #db: Kysely<Database>
  readonly #now: () => Date

  constructor(db: Kysely<Database>, now: () => Date) {
    this.#db = db
    this.#now = now
  }

  /** The id and email of the account whose email is `email` (in any spelling: `canonicalEmail`). */
  async accountByEmail(email: string): Promise<AccountTokenHolder | undefined> {
    const key = emailLookupKey(email)
    if (key === null) return undefined
    const row = await this.#db
      .selectFrom('accounts')
      .select(['id', 'email'])
      .where('email', '=', key)
      .executeTakeFirst()
    return row && { accountId: row.id, email: row.email }
  }

  /**
   * A new token of `purpose` for `accountId`, sent to `email`, valid for `ttlMs`: returns the
   * secret (only here). Of the older tokens of the same purpose, the newest `keep` that are
   * still live (unused, unexpired) stay valid; the others, and spent ones, are deleted.
   */
  async issue(
    accountId: string,
    purpose: AccountTokenPurpose,
    email: string,
    ttlMs: number,
    keep = 0,
  ): Promise<string> {
    const secret = newSecret()
    const now = this.#now()
    await this.#db.transaction().execute(async (trx) => {
      const live = await trx
        .selectFrom('account_tokens')
        .select('token_hash')
        .where('account_id', '=', accountId)
        .where('purpose', '=', purpose)
        .where('used_at', 'is', null)
        .where('expires_at', '>', now.toISOString())
        .orderBy('created_at', 'desc')
        .orderBy('token_hash')
        .limit(keep)
        .execute()
      let gone = trx
        .deleteFrom('account_tokens')
        .where('account_id', '=', accountId)
        .where('purpose', '=', purpose)
      if (live.length > 0) {
        gone = gone.where(
          'token_hash',
          'not in',
          live.map((r) => r.token_hash),
        )
      }
      await gone.execute()
      await trx
        .insertInto('account_tokens')
        .values({
          token_hash: hashKey(secret),
          account_id: accountId,
          purpose,
          email,
          created_at: now.toISOString(),
          expires_at: new Date(now.getTime() + ttlMs).toISOString(),
        })
        .execute()
    })
    return secret
  }

  /** Who `secret` names when it is a live, unused token of `purpose`; it stays unused. */
  async find(
    secret: string,
    purpose: AccountTokenPurpose,
  ): Promise<AccountTokenHolder | undefined> {
    if (!SECRET.test(secret)) return undefined
    const row = await this.#db
      .selectFrom('account_tokens')
      .select(['account_id', 'email'])
      .where('token_hash', '=', hashKey(secret))
      .where('purpose', '=', purpose)
      .where('used_at', 'is', null)
      .where('expires_at', '>', this.#now().toISOString())
      .executeTakeFirst()
    return row && { accountId: row.account_id, email: row.email }
  }

  /**
   * Use `secret`: who it names when it was a live, unused token of `purpose`, which it no longer
   * is; undefined otherwise (unknown, malformed, expired, or already used, even concurrently).
   */
  async use(secret: string, purpose: AccountTokenPurpose): Promise<AccountTokenHolder | undefined> {
    if (!SECRET.test(secret)) return undefined
    const now = this.#now().toISOString()
    const row = await this.#db
      .updateTable('account_tokens')
      .set({ used_at: now })
      .where('token_hash', '=', hashKey(secret))
      .where('purpose', '=', purpose)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .returning(['account_id', 'email'])
      .executeTakeFirst()
    return row && { accountId: row.account_id, email: row.email }
  }

  /** Delete every token of `purpose` of `accountId` (after a reset: other links stop working). */
  async revokeAll(accountId: string, purpose: AccountTokenPurpose): Promise<void> {
    await this.#db
      .deleteFrom('account_tokens')
      .where('account_id', '=', accountId)
      .where('purpose', '=', purpose)
      .execute()
  }

  /**
   * Record that `accountId`'s address `email` is confirmed; false (nothing changed) when the
   * account's address is no longer `email`.
   */
  async markVerified(accountId: string, email: string): Promise<boolean> {
    const result = await this.#db
      .updateTable('accounts')
      .set({ email_verified_at: this.#now().toISOString() })
      .where('id', '=', accountId)
      .where('email', '=', email)
      .executeTakeFirst()
    return result.numUpdatedRows > 0n
  }

  /** When `accountId`'s address was confirmed, or null (also for an unknown account). */
  async verifiedAt(accountId: string): Promise<Date | null> {
    const row = await this.#db
      .selectFrom('accounts')
      .select('email_verified_at')
      .where('id', '=', accountId)
      .executeTakeFirst()
    return row?.email_verified_at ? new Date(row.email_verified_at) : null
  }
}
