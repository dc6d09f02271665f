/**
 * OAuth clients burrowd knows (`oauth_clients`): Client ID Metadata Documents it fetched (kept
 * as a cache, fetched again when stale) and clients registered dynamically.
 */
import type { Kysely, Selectable } from 'kysely'
import type { Database } from './schema.js'

/** A known client. */
export interface OauthClient {
  readonly clientId: string
  readonly kind: 'cimd' | 'dcr'
  readonly name: string
  readonly redirectUris: readonly string[]
  readonly fetchedAt: Date
}

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
