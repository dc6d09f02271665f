/**
 * OAuth grants and authorization codes (`oauth_grants`, `oauth_codes`): a client the owner
 * approved for one tunnel, its single-use codes and its current refresh token (hashed, rotated
 * on every use). Deleting a grant revokes everything issued under it.
 */
import { randomBytes } from 'node:crypto'
import type { Kysely, Selectable } from 'kysely'
import type { Database } from './schema.js'
import { lockAccount } from './lock-account.js'
import { StoreError } from './store-error.js'

/** A grant as the authorization server and the dashboard see it. */
export interface OauthGrant {
  readonly id: string
  readonly tunnelId: string
  readonly accountId: string
  readonly clientId: string
  readonly clientName: string
  readonly approvedBy: string
  readonly resource: string
  readonly createdAt: Date
  readonly lastUsedAt: Date | null
  /** False until its code was redeemed (then it is a connected agent). */
  readonly redeemed: boolean
}

/** A grant whose refresh token was replaced; `repeated` when an earlier call replaced it. */
export interface RotatedGrant extends OauthGrant {
  readonly repeated: boolean
}

/** A code presented again after it was redeemed: the grant it belongs to. */
export interface ReplayedCode {
  readonly replayedGrantId: string
}

/** A code as redeemed: what the token endpoint checks. */
export interface RedeemedCode {
  readonly grant: OauthGrant
  readonly redirectUri: string
  readonly codeChallenge: string
  readonly expiresAt: Date
}

const LAST_USED_RESOLUTION_MS = 60_000

/**
 * Grants one tunnel may hold: clients approved, and approvals whose code is not redeemed yet.
 * Each approval writes a grant and a code; without a bound a signed-in owner's script wrote
 * hundreds a second into the database every tenant shares.
 */
export const MAX_GRANTS_PER_TUNNEL = 100

/**
 * How long an approval outlives its code unredeemed: a redemption that took the code just before
 * it expired still gives the grant its refresh token.
 */
const EXPIRED_CODE_KEPT_MS = 60_000

/**
 * How long a grant outlives its refresh token: the last access token it gave out (an hour) is
 * dead by then, so nothing it issued still works.
 */
const EXPIRED_GRANT_KEPT_MS = 2 * 3600_000

/** Queries over `oauth_grants` and `oauth_codes`. */
export class OauthGrantStore {
  readonly #db: Kysely<Database>
  readonly #now: () => Date

  constructor(db: Kysely<Database>, now: () => Date = () => new Date()) {
    this.#db = db
    this.#now = now
  }

  /**
   * Record an approval and its first code (by hash), holding the account's lock (so the browser
   * session approving is checked again: `acting-credential.ts`); returns the grant's id. The
   * tunnel's dead grants go first (an approval whose code expired unredeemed a minute ago, a grant whose
   * refresh token expired hours ago); past `MAX_GRANTS_PER_TUNNEL` live ones the approval is
   * refused (`conflict`).
   */
  async approve(input: {
    tunnelId: string
    accountId: string
    clientId: string
    clientName: string
    approvedBy: string
    resource: string
    codeHash: string
    redirectUri: string
    codeChallenge: string
    codeExpiresAt: Date
  }): Promise<string> {
    const id = 'grant_' + randomBytes(10).toString('hex')
    await this.#db.transaction().execute(async (trx) => {
      if ((await lockAccount(trx, input.accountId)) === undefined) {
        throw new StoreError('not_found', `account "${input.accountId}" does not exist`)
      }
      const now = this.#now()
      await trx
        .deleteFrom('oauth_grants')
        .where('tunnel_id', '=', input.tunnelId)
        .where((eb) =>
          eb.or([
            eb.and([
              eb('refresh_hash', 'is', null),
              eb.not(
                eb.exists(
                  eb
                    .selectFrom('oauth_codes')
                    .select('oauth_codes.grant_id')
                    .whereRef('oauth_codes.grant_id', '=', 'oauth_grants.id')
                    .where(
                      'oauth_codes.expires_at',
                      '>',
                      new Date(now.getTime() - EXPIRED_CODE_KEPT_MS).toISOString(),
                    ),
                ),
              ),
            ]),
            eb(
              'refresh_expires_at',
              '<',
              new Date(now.getTime() - EXPIRED_GRANT_KEPT_MS).toISOString(),
            ),
          ]),
        )
        .execute()
      const held = await trx
        .selectFrom('oauth_grants')
        .select((eb) => eb.fn.countAll<number | string | bigint>().as('n'))
        .where('tunnel_id', '=', input.tunnelId)
        .executeTakeFirstOrThrow()
      if (Number(held.n) >= MAX_GRANTS_PER_TUNNEL) {
        throw new StoreError(
          'conflict',
          `This tunnel has ${MAX_GRANTS_PER_TUNNEL} approved clients, the most it may have. Disconnect the ones you no longer use on the tunnel's Access tab, then approve again.`,
        )
      }
      await trx
        .insertInto('oauth_grants')
        .values({
          id,
          tunnel_id: input.tunnelId,
          account_id: input.accountId,
          client_id: input.clientId,
          client_name: input.clientName,
          approved_by: input.approvedBy,
          resource: input.resource,
          created_at: this.#now().toISOString(),
        })
        .execute()
      await trx
        .insertInto('oauth_codes')
        .values({
          code_hash: input.codeHash,
          grant_id: id,
          redirect_uri: input.redirectUri,
          code_challenge: input.codeChallenge,
          expires_at: input.codeExpiresAt.toISOString(),
        })
        .execute()
    })
    return id
  }

  /**
   * Take the code with hash `codeHash`. It can be taken once: a code already taken (a replay, or
   * a concurrent taker) gives its grant's id as `replayedGrantId`; an unknown one, undefined.
   */
  async takeCode(codeHash: string): Promise<RedeemedCode | ReplayedCode | undefined> {
    const code = await this.#db
      .updateTable('oauth_codes')
      .set({ used_at: this.#now().toISOString() })
      .where('code_hash', '=', codeHash)
      .where('used_at', 'is', null)
      .returningAll()
      .executeTakeFirst()
    if (code === undefined) {
      const used = await this.#db
        .selectFrom('oauth_codes')
        .select('grant_id')
        .where('code_hash', '=', codeHash)
        .executeTakeFirst()
      return used === undefined ? undefined : { replayedGrantId: used.grant_id }
    }
    const grant = await this.get(code.grant_id)
    if (grant === undefined) return undefined
    return {
      grant,
      redirectUri: code.redirect_uri,
      codeChallenge: code.code_challenge,
      expiresAt: new Date(code.expires_at),
    }
  }

  /** Give grant `id` its first refresh token (by hash). */
  async setRefresh(id: string, refreshHash: string, expiresAt: Date): Promise<void> {
    await this.#db
      .updateTable('oauth_grants')
      .set({ refresh_hash: refreshHash, refresh_expires_at: expiresAt.toISOString() })
      .where('id', '=', id)
      .execute()
  }

  /**
   * Replace refresh token `oldHash` by `newHash`. Returns the grant, `reused` when `oldHash` is
   * one this grant already replaced (a leaked token, whichever generation: the grant is
   * deleted), or undefined when unknown or expired. Replaced tokens are remembered until they
   * would have expired (the new token's expiry bounds theirs).
   *
   * A client's parallel requests refresh at once with the same token. The caller derives
   * `newHash` from the old token, so one replaced less than `graceMs` ago by exactly `newHash`
   * (nothing replaced since) is that same refresh again: the grant is returned, unchanged
   * (`repeated`).
   */
  async rotateRefresh(
    oldHash: string,
    newHash: string,
    expiresAt: Date,
    graceMs = 0,
  ): Promise<RotatedGrant | 'reused' | undefined> {
    const now = this.#now().toISOString()
    const updated = await this.#db.transaction().execute(async (trx) => {
      const row = await trx
        .updateTable('oauth_grants')
        .set({ refresh_hash: newHash, refresh_expires_at: expiresAt.toISOString() })
        .where('refresh_hash', '=', oldHash)
        .where('refresh_expires_at', '>', now)
        .returningAll()
        .executeTakeFirst()
      if (row === undefined) return undefined
      await trx
        .deleteFrom('oauth_replaced_refresh')
        .where('grant_id', '=', row.id)
        .where('expires_at', '<=', now)
        .execute()
      await trx
        .insertInto('oauth_replaced_refresh')
        .values({ refresh_hash: oldHash, grant_id: row.id, expires_at: expiresAt.toISOString() })
        .execute()
      return row
    })
    if (updated !== undefined) return { ...toGrant(updated), repeated: false }
    const replaced = await this.#db
      .selectFrom('oauth_replaced_refresh')
      .select('grant_id')
      .where('refresh_hash', '=', oldHash)
      .where('expires_at', '>', now)
      .executeTakeFirst()
    if (replaced === undefined) return undefined
    if (graceMs > 0) {
      // The current token's expiry was set when it replaced `oldHash`, as `expiresAt` is now.
      const again = await this.#db
        .selectFrom('oauth_grants')
        .selectAll()
        .where('id', '=', replaced.grant_id)
        .where('refresh_hash', '=', newHash)
        .where('refresh_expires_at', '>', new Date(expiresAt.getTime() - graceMs).toISOString())
        .executeTakeFirst()
      if (again !== undefined) return { ...toGrant(again), repeated: true }
    }
    await this.revoke(null, replaced.grant_id)
    return 'reused'
  }

  /** The grant whose current, unexpired refresh token has hash `hash`, if any. */
  async byRefresh(hash: string): Promise<OauthGrant | undefined> {
    const row = await this.#db
      .selectFrom('oauth_grants')
      .selectAll()
      .where('refresh_hash', '=', hash)
      .where('refresh_expires_at', '>', this.#now().toISOString())
      .executeTakeFirst()
    return row && toGrant(row)
  }

  /** The grant that replaced refresh token `hash` (still remembered), if any. */
  async replacing(hash: string): Promise<OauthGrant | undefined> {
    const row = await this.#db
      .selectFrom('oauth_replaced_refresh')
      .innerJoin('oauth_grants', 'oauth_grants.id', 'oauth_replaced_refresh.grant_id')
      .selectAll('oauth_grants')
      .where('oauth_replaced_refresh.refresh_hash', '=', hash)
      .executeTakeFirst()
    return row && toGrant(row)
  }

  /** Grant `id`, if it still exists. */
  async get(id: string): Promise<OauthGrant | undefined> {
    const row = await this.#db
      .selectFrom('oauth_grants')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst()
    return row && toGrant(row)
  }

  /** Record that grant `id` was used (at most once a minute). */
  async touch(id: string): Promise<void> {
    const now = this.#now()
    const stale = new Date(now.getTime() - LAST_USED_RESOLUTION_MS).toISOString()
    await this.#db
      .updateTable('oauth_grants')
      .set({ last_used_at: now.toISOString() })
      .where('id', '=', id)
      .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<=', stale)]))
      .execute()
  }

  /** Tunnel `tunnelId`'s connected agents (redeemed grants), newest first. */
  async list(tunnelId: string): Promise<OauthGrant[]> {
    const rows = await this.#db
      .selectFrom('oauth_grants')
      .selectAll()
      .where('tunnel_id', '=', tunnelId)
      .where('refresh_hash', 'is not', null)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute()
    return rows.map(toGrant)
  }

  /** Delete grant `id` of tunnel `tunnelId` (or of any tunnel when null); false when none. */
  async revoke(tunnelId: string | null, id: string): Promise<boolean> {
    let query = this.#db.deleteFrom('oauth_grants').where('id', '=', id)
    if (tunnelId !== null) query = query.where('tunnel_id', '=', tunnelId)
    const result = await query.executeTakeFirst()
    return result.numDeletedRows > 0n
  }

  /**
   * Delete every grant of tunnel `tunnelId`, connected or still waiting for its code to be
   * redeemed; how many there were.
   */
  async revokeAll(tunnelId: string): Promise<number> {
    const result = await this.#db
      .deleteFrom('oauth_grants')
      .where('tunnel_id', '=', tunnelId)
      .executeTakeFirst()
    return Number(result.numDeletedRows)
  }
}

function toGrant(row: Selectable<Database['oauth_grants']>): OauthGrant {
  return {
    id: row.id,
    tunnelId: row.tunnel_id,
    accountId: row.account_id,
    clientId: row.client_id,
    clientName: row.client_name,
    approvedBy: row.approved_by,
    resource: row.resource,
    createdAt: new Date(row.created_at),
    lastUsedAt: row.last_used_at === null ? null : new Date(row.last_used_at),
    redeemed: row.refresh_hash !== null,
  }
}
