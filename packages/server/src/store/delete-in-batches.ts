/**
 * A purge of a backlog in statements of at most `batchRows` rows each (the call history's and
 * the per-method metrics'): one statement for all of it could outlast the database bound
 * (BURROW_DATABASE_TIMEOUT_SECS), failing on every run while the database went on with it, and
 * on SQLite it would hold the event loop, and every tunnel's calls, for as long as it ran.
 */

/** Rows one statement of a purge deletes at most. */
export const PURGE_BATCH_ROWS = 5_000

/**
 * Run `deleteBatch(batchRows)`, which deletes at most that many rows and says how many, until a
 * statement deletes fewer; the number deleted in all.
 */
export async function deleteInBatches(
  batchRows: number,
  deleteBatch: (limit: number) => Promise<number>,
): Promise<number> {
  let deleted = 0
  for (;;) {
    const n = await deleteBatch(batchRows)
    deleted += n
    if (n < batchRows) return deleted
    // Between statements, what waited for the event loop (SQLite runs on it) goes first.
    await new Promise((resolve) => setImmediate(resolve))
  }
}
