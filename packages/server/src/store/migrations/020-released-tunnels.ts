/**
 * Tunnels deleted this month, whose month's usage the account's next new tunnel carries on
 * (`released-tunnels.ts`): the quotas are per tunnel and month, and a tunnel deleted and made
 * again (under the same address, even) started the month at zero.
 */
import type { Kysely, Migration } from 'kysely'

export const releasedTunnelsMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('released_tunnels')
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('tunnel_id', 'text', (c) => c.notNull())
      .addColumn('released_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('released_tunnels_pkey', ['account_id', 'tunnel_id'])
      .execute()
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropTable('released_tunnels').execute()
  },
}
