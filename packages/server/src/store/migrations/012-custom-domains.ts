/**
 * Migration `012_custom_domains`: custom domains of tunnels (Pro and above). One row per domain a
 * tunnel's owner added, with the random token its `_burrow-challenge` TXT record must hold, its
 * state (pending until DNS proves it, then verified) and when it was checked. A domain is unique
 * among verified rows (a partial unique index), so a pending claim by another account never
 * blocks the real owner; a tunnel carries at most one domain. Registered in
 * `migrate-to-latest.ts`; the table's type is in `store/schema.ts`.
 */
import { sql, type Kysely, type Migration } from 'kysely'

/** 012: custom domains. */
export const customDomainsMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('custom_domains')
      .addColumn('id', 'text', (c) => c.primaryKey())
      /** The domain in ASCII (punycode), lower-case, without a trailing dot. */
      .addColumn('domain', 'text', (c) => c.notNull())
      .addColumn('tunnel_id', 'text', (c) =>
        c.notNull().references('tunnels.id').onDelete('cascade'),
      )
      .addColumn('account_id', 'text', (c) =>
        c.notNull().references('accounts.id').onDelete('cascade'),
      )
      .addColumn('token', 'text', (c) => c.notNull())
      /** `pending` or `verified`. */
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('checked_at', 'text')
      .addColumn('verified_at', 'text')
      /** When the records of a verified domain were first found missing (cleared when found). */
      .addColumn('failing_since', 'text')
      /** What the last check found wrong, for the owner. */
      .addColumn('problem', 'text')
      .execute()
    await db.schema
      .createIndex('custom_domains_verified_domain')
      .on('custom_domains')
      .column('domain')
      .unique()
      .where(sql.ref('state'), '=', 'verified')
      .execute()
    await db.schema
      .createIndex('custom_domains_tunnel')
      .on('custom_domains')
      .column('tunnel_id')
      .unique()
      .execute()
    await db.schema
      .createIndex('custom_domains_domain')
      .on('custom_domains')
      .column('domain')
      .execute()
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropTable('custom_domains').execute()
  },
}
