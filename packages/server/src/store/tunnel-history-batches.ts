/**
 * Work over all of one tunnel's call history in statements of at most `batchRows` rows: erasing
 * its bodies (zero-knowledge mode turned on) and deleting it (the tunnel deleted). As one
 * statement each, a tunnel with millions of calls could never be deleted nor turned
 * zero-knowledge on PostgreSQL (the statement outlived the database bound, 503 every time), and
 * on SQLite 300,000 calls held the event loop, and every other tunnel's calls, for seconds
 * (found by a hostile review). Between statements, what waited for the event loop goes first.
 */
import type { Kysely } from 'kysely'
import { deleteInBatches, PURGE_BATCH_ROWS } from './delete-in-batches.js'
import type { Database } from './schema.js'

/** Null the stored bodies of `tunnelId`'s call history; how many rows had one. */
export async function eraseHistoryBodies(
  db: Kysely<Database>,
  tunnelId: string,
  batchRows: number = PURGE_BATCH_ROWS,
): Promise<number> {
  let erased = 0
  // Walked by `(tunnel_id, id)`: each statement takes the next `batchRows` ids, so rows already
  // erased are not read again.
  let after = ''
  for (;;) {
    const boundary = await db
      .selectFrom('call_history')
      .select('id')
      .where('tunnel_id', '=', tunnelId)
      .where('id', '>', after)
      .orderBy('id')
      .limit(1)
      .offset(batchRows - 1)
      .executeTakeFirst()
    let erase = db
      .updateTable('call_history')
      .set({ request_body: null, response_body: null })
      .where('tunnel_id', '=', tunnelId)
      .where('id', '>', after)
      .where((eb) =>
        eb.or([eb('request_body', 'is not', null), eb('response_body', 'is not', null)]),
      )
    if (boundary !== undefined) erase = erase.where('id', '<=', boundary.id)
    const result = await erase.executeTakeFirst()
    erased += Number(result.numUpdatedRows)
    if (boundary === undefined) return erased
    after = boundary.id
    await new Promise((resolve) => setImmediate(resolve))
  }
}

/** Delete `tunnelId`'s call history; how many rows. */
export async function deleteHistory(
  db: Kysely<Database>,
  tunnelId: string,
  batchRows: number = PURGE_BATCH_ROWS,
): Promise<number> {
  return deleteInBatches(batchRows, async (limit) => {
    const result = await db
      .deleteFrom('call_history')
      .where('id', 'in', (rows) =>
        rows.selectFrom('call_history').select('id').where('tunnel_id', '=', tunnelId).limit(limit),
      )
      .executeTakeFirst()
    return Number(result.numDeletedRows)
  })
}
