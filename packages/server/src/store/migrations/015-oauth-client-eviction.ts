/**
 * Indexes for keeping OAuth clients nobody approved within a bound (`OauthClientStore.evict`):
 * grants by client, and clients by when they were registered or last fetched.
 */
import type { Kysely, Migration } from 'kysely'

export const oauthClientEvictionMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createIndex('oauth_grants_client')
      .on('oauth_grants')
      .column('client_id')
      .execute()
    await db.schema
      .createIndex('oauth_clients_fetched')
      .on('oauth_clients')
      .column('fetched_at')
      .execute()
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropIndex('oauth_clients_fetched').execute()
    await db.schema.dropIndex('oauth_grants_client').execute()
  },
}
