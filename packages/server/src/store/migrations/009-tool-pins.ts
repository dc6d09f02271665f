/**
 * Migration `009_tool_pins`: rug-pull protection. Each tunnel's tools as agents see them, with the
 * approved definition's hash (and text, unless the tunnel is in zero-knowledge mode) beside the
 * one last seen, the tool's status (approved, changed, new, renamed, removed, rejected), and a
 * row per tunnel saying its baseline was taken; every approval and rejection is kept. Registered
 * in `migrate-to-latest.ts`; the tables' types are in `store/schema.ts`.
 */
import type { Kysely, Migration } from 'kysely'

/** 009: tool pins, baselines and approvals. */
export const toolPinsMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('tool_baselines')
      .addColumn('tunnel_id', 'text', (c) =>
        c.primaryKey().references('tunnels.id').onDelete('cascade'),
      )
      .addColumn('taken_at', 'text', (c) => c.notNull())
      /** When a server said its tool list changed (`notifications/tools/list_changed`). */
      .addColumn('list_changed_at', 'text')
      .execute()
    await db.schema
      .createTable('tool_pins')
      .addColumn('tunnel_id', 'text', (c) =>
        c.notNull().references('tunnels.id').onDelete('cascade'),
      )
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('approved_hash', 'text')
      .addColumn('approved_definition', 'text')
      .addColumn('current_hash', 'text')
      .addColumn('current_definition', 'text')
      .addColumn('current_body_hash', 'text')
      .addColumn('approved_body_hash', 'text')
      .addColumn('renamed_from', 'text')
      .addColumn('changed_at', 'text')
      .addColumn('approved_at', 'text')
      .addColumn('approved_by', 'text')
      .addPrimaryKeyConstraint('tool_pins_pkey', ['tunnel_id', 'name'])
      .execute()
    await db.schema
      .createTable('tool_approvals')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('tunnel_id', 'text', (c) =>
        c.notNull().references('tunnels.id').onDelete('cascade'),
      )
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('decision', 'text', (c) => c.notNull())
      .addColumn('hash', 'text')
      .addColumn('decided_at', 'text', (c) => c.notNull())
      .addColumn('decided_by', 'text', (c) => c.notNull())
      .execute()
    await db.schema
      .createIndex('tool_approvals_tunnel')
      .on('tool_approvals')
      .columns(['tunnel_id', 'decided_at'])
      .execute()
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropTable('tool_approvals').execute()
    await db.schema.dropTable('tool_pins').execute()
    await db.schema.dropTable('tool_baselines').execute()
  },
}
