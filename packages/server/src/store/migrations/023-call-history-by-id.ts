/**
 * A tunnel's call history read newest first (`governance/call-log.ts`): by `(tunnel_id, id)`,
 * as ids are time-ordered. With only `(tunnel_id, at)`, each page of the Traffic tab and of
 * `GET /api/tunnels/:id/calls` sorted every call the tunnel kept, or walked the whole table's
 * primary key backwards, to find the newest few.
 */
import type { Kysely, Migration } from 'kysely'

export const callHistoryByIdMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createIndex('call_history_tunnel_id')
      .on('call_history')
      .columns(['tunnel_id', 'id'])
      .execute()
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropIndex('call_history_tunnel_id').execute()
  },
}
