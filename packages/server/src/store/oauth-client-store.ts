/**
 * OAuth clients burrowd knows (`oauth_clients`): Client ID Metadata Documents it fetched (kept
 * as a cache, fetched again when stale) and clients registered dynamically. Strangers make
 * both, so those no owner has approved are kept within a bound, newest first (`evict`).
 */
import type { ExpressionBuilder, Kysely, Selectable } from 'kysely'
import type { Database } from './schema.js'

/** A known client. */
export interface OauthClient {
  readonly clientId: string
  readonly kind: 'cimd' | 'dcr'
  readonly name: string
  readonly redirectUris: readonly string[]
  readonly fetchedAt: Date
}

/** Clients without a grant kept at most (registered or fetched for anyone, signed in or not). */
export const MAX_UNAPPROVED_CLIENTS = 10_000

/** Queries over `oauth_clients`. */
export class OauthClientStore {
  readonly #db: Kysely<Database>

  constructor(db: Kysely<Database>) {
    this.#db = db
  }

  /** Client `clientId`, if known. */
  async get(clientId: string): Promise<OauthClient | undefined> {
    const row = await this.#db
      .selectFrom('oauth_clients')
      .selectAll()
      .where('client_id', '=', clientId)
      .executeTakeFirst()
    return row && toClient(row)
  }

  /**
   * The accounts whose grants name client `clientId` (their owners approved it, and did not
   * revoke it), oldest grant first, at most `limit`; none when nobody approved it.
   */
  async grantAccounts(clientId: string, limit = 20): Promise<string[]> {
    const rows = await this.#db
      .selectFrom('oauth_grants')
      .select('account_id')
      .select((eb) => eb.fn.min('created_at').as('first'))
      .where('client_id', '=', clientId)
      .groupBy('account_id')
      .orderBy('first')
      .orderBy('account_id')
      .limit(limit)
      .execute()
    return rows.map((row) => row.account_id)
  }

  /** Store (or refresh) a client. */
  async put(client: OauthClient, document: string, now: Date): Promise<void> {
    const values = {
      kind: client.kind,
      name: client.name,
      redirect_uris: JSON.stringify(client.redirectUris),
      document,
      fetched_at: client.fetchedAt.toISOString(),
    }
    await this.#db
      .insertInto('oauth_clients')
      .values({ client_id: client.clientId, created_at: now.toISOString(), ...values })
      .onConflict((oc) => oc.column('client_id').doUpdateSet(values))
      .execute()
  }

  /**
   * Delete the clients no grant names beyond the newest `keep` (by registration or last fetch):
   * a registration nobody approved, or a cached document, is the first to go. Returns how many.
   */
  async evict(keep = MAX_UNAPPROVED_CLIENTS): Promise<number> {
    const boundary = await this.#db
      .selectFrom('oauth_clients')
      .where(withoutGrant)
      .select('fetched_at')
      .orderBy('fetched_at', 'desc')
      .limit(1)
      .offset(keep)
      .executeTakeFirst()
    if (boundary === undefined) return 0
    const result = await this.#db
      .deleteFrom('oauth_clients')
      .where('fetched_at', '<=', boundary.fetched_at)
      .where(withoutGrant)
      .executeTakeFirst()
    return Number(result.numDeletedRows)
  }
}

/** The client has no grant: nobody approved it (or every approval was revoked). */
function withoutGrant(eb: ExpressionBuilder<Database, 'oauth_clients'>) {
  return eb.not(
    eb.exists(
      eb
        .selectFrom('oauth_grants')
        .select('oauth_grants.id')
        .whereRef('oauth_grants.client_id', '=', 'oauth_clients.client_id'),
    ),
  )
}

function toClient(row: Selectable<Database['oauth_clients']>): OauthClient {
  return {
    clientId: row.client_id,
    kind: row.kind === 'cimd' ? 'cimd' : 'dcr',
    name: row.name,
    redirectUris: JSON.parse(row.redirect_uris) as string[],
    fetchedAt: new Date(row.fetched_at),
  }
}
