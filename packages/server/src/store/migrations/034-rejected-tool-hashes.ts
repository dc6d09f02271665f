/**
 * Migration `034_rejected_tool_hashes`: the definitions of each pinned tool its owner rejected
 * (store/rejected-hashes.ts), so a rejected definition the server lists again after another one
 * is still rejected. A tool rejected now has its current definition remembered.
 */
import { sql, type Kysely, type Migration } from 'kysely'

export const rejectedToolHashesMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('tool_pins').addColumn('rejected_hashes', 'text').execute()
    // Hashes are hex and forms integers: nothing in them needs escaping in JSON.
    await sql`
      UPDATE tool_pins
      SET rejected_hashes =
        '[{"hash":"' || current_hash || '","form":' || CAST(COALESCE(current_form, 1) AS TEXT) || '}]'
      WHERE status = 'rejected' AND current_hash IS NOT NULL
    `.execute(db)
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('tool_pins').dropColumn('rejected_hashes').execute()
  },
}
