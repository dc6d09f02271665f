/**
 * The key hashes of tunnels, for the node holding their clients to check the keys they connected
 * with (broker/key-recheck.ts). A tunnel deleted has none.
 */
import type { Kysely } from 'kysely'
import type { Database } from './schema.js'

/** The key hash of each of `tunnelIds` that still exists. */
export async function tunnelKeyHashes(
  db: Kysely<Database>,
  tunnelIds: readonly string[],
): Promise<Map<string, string>> {
  if (tunnelIds.length === 0) return new Map()
  const rows = await db
    .selectFrom('tunnels')
    .select(['id', 'key_hash'])
    .where('id', 'in', [...tunnelIds])
    .execute()
  return new Map(rows.map((r) => [r.id, r.key_hash]))
}
