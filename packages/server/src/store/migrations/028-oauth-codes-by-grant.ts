/**
 * OAuth codes found by their grant: an approval deletes the tunnel's grants whose codes all
 * expired unredeemed (`oauth-grant-store.ts`), and deleting a grant deletes its codes; both
 * looked through every tenant's codes.
 */
import type { Kysely, Migration } from 'kysely'

export const oauthCodesByGrantMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.createIndex('oauth_codes_grant').on('oauth_codes').column('grant_id').execute()
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropIndex('oauth_codes_grant').execute()
  },
}
