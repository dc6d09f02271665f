/**
 * Migration `011_access`: who may call a tunnel. Each tunnel's access mode (`oauth`, `token` or
 * `public`) and IP allowlist; static agent tokens (`atk_…`, stored hashed); the agent of each call in call history; and burrowd's own
 * OAuth 2.1 authorization server: clients (Client ID Metadata Documents and dynamically
 * registered ones), grants (one per approved client and tunnel, holding the current refresh
 * token's hash) and single-use authorization codes. Tunnels that exist when it runs keep
 * answering as they did (`public`); a tunnel without a row is `oauth`. Registered in
 * `migrate-to-latest.ts`; the tables' types are in `store/access-schema.ts`.
 */
import { sql, type Kysely, type Migration } from 'kysely'

/** 011: access modes, allowlists, agent tokens, OAuth clients, grants and codes. */
export const accessMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('tunnel_access')
      .addColumn('tunnel_id', 'text', (c) =>
        c.primaryKey().references('tunnels.id').onDelete('cascade'),
      )
      .addColumn('mode', 'text', (c) => c.notNull())
      .addColumn('allow_ips', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute()
    // Existing tunnels were public: they stay so (the dashboard warns) until their owner chooses.
    await sql`insert into tunnel_access (tunnel_id, mode, allow_ips, updated_at)
      select id, 'public', '[]', ${new Date().toISOString()} from tunnels`.execute(db)

    await db.schema
      .createTable('agent_tokens')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('tunnel_id', 'text', (c) =>
        c.notNull().references('tunnels.id').onDelete('cascade'),
      )
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('token_hash', 'text', (c) => c.notNull().unique())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('last_used_at', 'text')
      .execute()
    await db.schema
      .createIndex('agent_tokens_tunnel')
      .on('agent_tokens')
      .column('tunnel_id')
      .execute()

    await db.schema
      .createTable('oauth_clients')
      .addColumn('client_id', 'text', (c) => c.primaryKey())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('redirect_uris', 'text', (c) => c.notNull())
      .addColumn('document', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('fetched_at', 'text', (c) => c.notNull())
      .execute()

    await db.schema
      .createTable('oauth_grants')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('tunnel_id', 'text', (c) =>
        c.notNull().references('tunnels.id').onDelete('cascade'),
      )
      .addColumn('account_id', 'text', (c) =>
        c.notNull().references('accounts.id').onDelete('cascade'),
      )
      .addColumn('client_id', 'text', (c) => c.notNull())
      .addColumn('client_name', 'text', (c) => c.notNull())
      .addColumn('approved_by', 'text', (c) => c.notNull())
      .addColumn('resource', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('last_used_at', 'text')
      .addColumn('refresh_hash', 'text', (c) => c.unique())
      .addColumn('previous_refresh_hash', 'text')
      .addColumn('refresh_expires_at', 'text')
      .execute()
    await db.schema
      .createIndex('oauth_grants_tunnel')
      .on('oauth_grants')
      .column('tunnel_id')
      .execute()

    // Who called, in call history: the agent the access gate admitted (null for public tunnels).
    await db.schema.alterTable('call_history').addColumn('agent', 'text').execute()

    await db.schema
      .createTable('oauth_codes')
      .addColumn('code_hash', 'text', (c) => c.primaryKey())
      .addColumn('grant_id', 'text', (c) =>
        c.notNull().references('oauth_grants.id').onDelete('cascade'),
      )
      .addColumn('redirect_uri', 'text', (c) => c.notNull())
      .addColumn('code_challenge', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .execute()
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('call_history').dropColumn('agent').execute()
    await db.schema.dropTable('oauth_codes').execute()
    await db.schema.dropTable('oauth_grants').execute()
    await db.schema.dropTable('oauth_clients').execute()
    await db.schema.dropTable('agent_tokens').execute()
    await db.schema.dropTable('tunnel_access').execute()
  },
}
