/**
 * API tokens: bearer secrets (`btk_…`) for scripts calling `/api/*`. The secret is shown once
 * when made; the `api_tokens` row keeps its SHA-256, a name the owner chose and when it was last
 * used. Owners list and revoke their own tokens only. Reached as `store.apiTokens`.
 */

import type { Kysely, Selectable } from 'kysely'
import { hashKey } from './hash-key.js'
import { lockAccount } from './lock-account.js'
import { newId, newSecret } from './random-token.js'
import type { Database } from './schema.js'
import { StoreError } from './store-error.js'

/** Prefix of every API token secret; tells it apart from a tunnel key (`mtk_`) at a glance. */
export const API_TOKEN_PREFIX = 'btk_'

/** An API token as its owner sees it (never the secret). */
export interface ApiToken {
  /** `tok_` + random hex. */
  readonly id: string
  readonly accountId: string
  readonly name: string
  readonly createdAt: Date
  /** The last authenticated call (up to a minute behind); null when never used. */
  readonly lastUsedAt: Date | null
}

/** Tokens one account may hold at once: enough for every script, not a table to fill. */
export const MAX_API_TOKENS = 50
const NAME_MAX = 100
/** `last_used_at` is written at most this often per token: a busy script must not write per call. */
const LAST_USED_RESOLUTION_MS = 60_000
/** `btk_` and 43 characters of base64url. */
const SECRET = /^btk_[A-Za-z0-9_-]{43}$/

/** Queries over `api_tokens`. */
export class ApiTokenStore {
  readonly #db: Kysely<Database>
  readonly #now: () => Date

  constructor(db: Kysely<Database>, now: () => Date) {
    this.#db = db
    this.#now = now
  }

  /**
   * Make a token for account `accountId`, named `name` (trimmed; 1 to 100 printable
   * characters). Returns it with its `secret`, which exists only here. Throws `StoreError`
   * `invalid` for a bad name or when the account already has `MAX_API_TOKENS`, `not_found` for an
   * unknown account.
   */
  async create(accountId: string, name: string): Promise<{ token: ApiToken; secret: string }> {
    const trimmed = name.trim()
    if (trimmed === '' || [...trimmed].length > NAME_MAX || /\p{Cc}/u.test(trimmed)) {
      throw new StoreError(
        'invalid',
        `token name must be 1 to ${NAME_MAX} printable characters; give it a name you will recognise`,
      )
    }
    const secret = API_TOKEN_PREFIX + newSecret()
    // The count and the insert in one transaction holding the account's lock, so that creates
    // at once cannot all pass the cap.
    const row = await this.#db.transaction().execute(async (trx) => {
      if ((await lockAccount(trx, accountId)) === undefined) {
        throw new StoreError('not_found', `account "${accountId}" does not exist`)
      }
      const count = await trx
        .selectFrom('api_tokens')
        .select((eb) => eb.fn.countAll<number | string | bigint>().as('n'))
        .where('account_id', '=', accountId)
        .executeTakeFirstOrThrow()
      if (Number(count.n) >= MAX_API_TOKENS) {
        throw new StoreError(
          'invalid',
          `an account holds at most ${MAX_API_TOKENS} API tokens; revoke one you no longer use`,
        )
      }
      return trx
        .insertInto('api_tokens')
        .values({
          id: newId('tok_'),
          account_id: accountId,
          name: trimmed,
          token_hash: hashKey(secret),
          created_at: this.#now().toISOString(),
        })
        .returningAll()
        .executeTakeFirstOrThrow()
    })
    return { token: toApiToken(row), secret }
  }

  /** The account's tokens, newest first. */
  async list(accountId: string): Promise<ApiToken[]> {
    const rows = await this.#db
      .selectFrom('api_tokens')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute()
    return rows.map(toApiToken)
  }

  /**
   * Revoke token `id` of account `accountId`: its secret stops working at once. False when the
   * account has no such token (unknown, already revoked, or another account's).
   */
  async revoke(accountId: string, id: string): Promise<boolean> {
    const result = await this.#db
      .deleteFrom('api_tokens')
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .executeTakeFirst()
    return result.numDeletedRows > 0n
  }

  /**
   * Revoke every token of account `accountId` at once, holding its lock: a token being made
   * meanwhile is either made first (and revoked here) or made after, by a credential the lock's
   * check then finds revoked (`acting-credential.ts`), so none survives.
   */
  async revokeAll(accountId: string): Promise<void> {
    await this.#db.transaction().execute(async (trx) => {
      await lockAccount(trx, accountId)
      await trx.deleteFrom('api_tokens').where('account_id', '=', accountId).execute()
    })
  }

  /**
   * The account and token a `btk_…` secret authenticates, or undefined for an unknown, revoked
   * or malformed one. Records the use (at most once a minute per token).
   */
  async authenticate(secret: string): Promise<{ accountId: string; tokenId: string } | undefined> {
    if (!SECRET.test(secret)) return undefined
    const row = await this.#db
      .selectFrom('api_tokens')
      .select(['id', 'account_id', 'last_used_at'])
      .where('token_hash', '=', hashKey(secret))
      .executeTakeFirst()
    if (row === undefined) return undefined
    const now = this.#now()
    const stale = new Date(now.getTime() - LAST_USED_RESOLUTION_MS).toISOString()
    if (row.last_used_at === null || row.last_used_at <= stale) {
      // Conditional, so of concurrent calls on a busy token only one writes.
      await this.#db
        .updateTable('api_tokens')
        .set({ last_used_at: now.toISOString() })
        .where('id', '=', row.id)
        .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<=', stale)]))
        .execute()
    }
    return { accountId: row.account_id, tokenId: row.id }
  }
}

function toApiToken(row: Selectable<Database['api_tokens']>): ApiToken {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    createdAt: new Date(row.created_at),
    lastUsedAt: row.last_used_at === null ? null : new Date(row.last_used_at),
  }
}
