/**
 * Migration `010_account_recovery`: the way back into an account. `account_tokens` holds the
 * single-use tokens mailed for a password reset or an email verification, only as SHA-256 hashes
 * of their secrets, each with its purpose, the address it was sent to, when it expires and when it
 * was used; `accounts.email_verified_at` says when the account's address was confirmed.
 * Registered in `migrate-to-latest.ts`; the tables' types are in `store/schema.ts`.
 */
import type { Kysely, Migration } from 'kysely'

/** 010: mailed reset and verification tokens, and verified addresses. */
export const accountRecoveryMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('accounts').addColumn('email_verified_at', 'text').execute()
    await db.schema
      .createTable('account_tokens')
      .addColumn('token_hash', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) =>
        c.notNull().references('accounts.id').onDelete('cascade'),
      )
      .addColumn('purpose', 'text', (c) => c.notNull())
      .addColumn('email', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addColumn('used_at', 'text')
      .execute()
    await db.schema
      .createIndex('account_tokens_account')
      .on('account_tokens')
      .columns(['account_id', 'purpose'])
      .execute()
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropTable('account_tokens').execute()
    await db.schema.alterTable('accounts').dropColumn('email_verified_at').execute()
  },
}
