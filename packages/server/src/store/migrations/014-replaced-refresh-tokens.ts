/**
 * `oauth_replaced_refresh`: every refresh token a grant has replaced (by hash) while it could
 * still be presented, so that any of them coming back, not only the last one, reveals the leak
 * and ends the grant. Rows go with their grant and once the token they name has expired.
 * `oauth_grants.previous_refresh_hash` (011) is carried over and no longer written.
 */
import { sql, type Kysely, type Migration } from 'kysely'

export const replacedRefreshMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('oauth_replaced_refresh')
      .addColumn('refresh_hash', 'text', (c) => c.primaryKey())
      .addColumn('grant_id', 'text', (c) =>
        c.notNull().references('oauth_grants.id').onDelete('cascade'),
      )
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .execute()
    await db.schema
      .createIndex('oauth_replaced_refresh_grant')
      .on('oauth_replaced_refresh')
      .column('grant_id')
      .execute()
    // The current token never expires before the one it replaced: a safe bound for the old one.
    await sql`
      insert into oauth_replaced_refresh (refresh_hash, grant_id, expires_at)
      select previous_refresh_hash, id, refresh_expires_at from oauth_grants
      where previous_refresh_hash is not null and refresh_expires_at is not null`.execute(db)
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropTable('oauth_replaced_refresh').execute()
  },
}
