/**
 * Migration `004_accounts_web`: what signing in to the dashboard and calling the JSON API need.
 * Passwords (scrypt, on the account row), browser sessions and API tokens (both stored only as
 * SHA-256 hashes of their secrets), and the owner's choice of which tunnels keep serving after a
 * downgrade (`tunnels.pinned`). Registered in `migrate-to-latest.ts`; the tables' types are in
 * `store/schema.ts`.
 */

import type { Kysely, Migration } from 'kysely'

/** 004: passwords, browser sessions, API tokens and pinned tunnels. */
export const accountsWebMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('accounts').addColumn('password_hash', 'text').execute()
    await db.schema
      .alterTable('tunnels')
      .addColumn('pinned', 'integer', (c) => c.notNull().defaultTo(0))
      .execute()
    await db.schema
      .createTable('web_sessions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) =>
        c.notNull().references('accounts.id').onDelete('cascade'),
      )
      .addColumn('csrf_token', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .execute()
    await db.schema
      .createIndex('web_sessions_account')
      .on('web_sessions')
      .column('account_id')
      .execute()
    // For `purgeExpired`, which deletes by expiry.
    await db.schema
      .createIndex('web_sessions_expires_at')
      .on('web_sessions')
      .column('expires_at')
      .execute()
    await db.schema
      .createTable('api_tokens')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) =>
        c.notNull().references('accounts.id').onDelete('cascade'),
      )
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('token_hash', 'text', (c) => c.notNull().unique())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('last_used_at', 'text')
      .execute()
    await db.schema
      .createIndex('api_tokens_account')
      .on('api_tokens')
      .column('account_id')
      .execute()
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropTable('api_tokens').execute()
    await db.schema.dropTable('web_sessions').execute()
    await db.schema.alterTable('tunnels').dropColumn('pinned').execute()
    await db.schema.alterTable('accounts').dropColumn('password_hash').execute()
  },
}
