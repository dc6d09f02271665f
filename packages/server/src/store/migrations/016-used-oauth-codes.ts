/**
 * Authorization codes are kept once redeemed, marked used, so that a code presented again is
 * known as a replay and its grant revoked (OAuth 2.1 §4.1.3; RFC 6749 §4.1.2). They go with their
 * grant.
 */
import type { Kysely, Migration } from 'kysely'

export const usedOauthCodesMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('oauth_codes').addColumn('used_at', 'text').execute()
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('oauth_codes').dropColumn('used_at').execute()
  },
}
