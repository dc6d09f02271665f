/**
 * `call_history.continues`: the call a 2026-07-28 retry carrying `requestState` continues (the
 * first call of the chain), so history links the rounds of one logical call.
 */
import type { Kysely, Migration } from 'kysely'

export const callContinuationsMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('call_history').addColumn('continues', 'text').execute()
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('call_history').dropColumn('continues').execute()
  },
}
