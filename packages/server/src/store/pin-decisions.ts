/**
 * The owner's decision on a rug-pull pin (tool-pins-store.ts `decide`): approve a tool's current
 * definition, reject it, or acknowledge a removal, under the account's lock and with the row
 * locked, each decision kept in the history.
 */
import { randomBytes } from 'node:crypto'
import { PostgresAdapter, type Kysely } from 'kysely'
import { LEGACY_PIN_FORM } from '../governance/tool-definition.js'
import { lockAccount } from './lock-account.js'
import { isForgotten, type Decided, type PinStatus } from './pin-rows.js'
import { withRejected, withoutRejected } from './rejected-hashes.js'
import type { Database } from './schema.js'

/**
 * Approve the current definition of `name` (a removed tool's approval forgets it, but for the
 * definitions its owner rejected: `forgetRemoved`; approving a definition forgets its rejection), or reject it (only a changed, new or renamed one; its hash is
 * remembered among the tool's rejected ones, store/rejected-hashes.ts). With `expect.hash`, only when the current
 * definition still has that hash, and with `expect.status` only while the tool has that
 * status: the owner decides what they saw (an Acknowledge of a removed tool, which has no
 * current hash, never approves a tool listed since under that name). Every decision is kept
 * in the history.
 *
 * The row is locked while it is decided (PostgreSQL: `FOR UPDATE`; SQLite's transactions do
 * not interleave): a change another node records meanwhile is either seen by the decision or
 * waits for it. Before, the decision read the row unlocked and wrote what it had read, so a
 * definition recorded between the two was marked approved with the previous one's hash, and
 * later listings of it, equal to the "current" one, were never compared again; and two
 * approvals at once were both recorded.
 */
export async function decidePin(
  db: Kysely<Database>,
  tunnelId: string,
  name: string,
  decision: 'approved' | 'rejected',
  by: string,
  at: Date,
  expect: { hash?: string | null; status?: PinStatus | undefined } = {},
): Promise<Decided> {
  // A name holding U+0000 is never pinned (and PostgreSQL refuses to compare with one).
  if (name.includes('\u0000')) return 'unknown'
  const when = at.toISOString()
  // Under the account's lock, which checks again that the credential the request acts with
  // still exists (an approval's body can arrive after its API token was revoked); the account
  // is read first so that the lock's write is the first statement (tunnel-access-store.ts).
  const tunnel = await db
    .selectFrom('tunnels')
    .select('account_id')
    .where('id', '=', tunnelId)
    .executeTakeFirst()
  return db.transaction().execute(async (trx): Promise<Decided> => {
    if (tunnel !== undefined) await lockAccount(trx, tunnel.account_id)
    const read = trx
      .selectFrom('tool_pins')
      .selectAll()
      .where('tunnel_id', '=', tunnelId)
      .where('name', '=', name)
    const row = await (
      trx.getExecutor().adapter instanceof PostgresAdapter ? read.forUpdate() : read
    ).executeTakeFirst()
    // A tool the owner forgot is no tool (pin-rows.ts): only its rejections are kept.
    if (row === undefined) return 'unknown'
    if (isForgotten({ status: row.status, approvedHash: row.approved_hash ?? null }))
      return 'unknown'
    const expectHash = expect.hash ?? null
    if (expectHash !== null && (row.current_hash ?? null) !== expectHash) return 'stale'
    if (decision === 'rejected' && !['changed', 'new', 'renamed'].includes(row.status)) {
      return 'not_pending'
    }
    if (decision === 'approved' && row.status === 'approved') return 'decided'
    if (expect.status !== undefined && row.status !== expect.status) return 'stale'
    if (decision === 'approved' && row.status === 'removed') {
      await forgetRemoved(trx, tunnelId, name)
    } else if (decision === 'approved') {
      await trx
        .updateTable('tool_pins')
        .set({
          status: 'approved',
          approved_hash: row.current_hash ?? null,
          approved_body_hash: row.current_body_hash ?? null,
          approved_definition: row.current_definition ?? null,
          approved_form: row.current_form ?? null,
          rejected_hashes: withoutRejected(row.rejected_hashes ?? null, row.current_hash ?? null),
          renamed_from: null,
          approved_at: when,
          approved_by: by,
        })
        .where('tunnel_id', '=', tunnelId)
        .where('name', '=', name)
        .execute()
      // A rename approved: the old name is gone for good (but for what its owner rejected).
      if (row.renamed_from) await forgetRemoved(trx, tunnelId, row.renamed_from)
    } else {
      await trx
        .updateTable('tool_pins')
        .set({
          status: 'rejected',
          // Remembered, so the definition is rejected again when it comes back after another.
          ...(row.current_hash
            ? {
                rejected_hashes: withRejected(row.rejected_hashes ?? null, {
                  hash: row.current_hash,
                  form: row.current_form ?? LEGACY_PIN_FORM,
                }),
              }
            : {}),
        })
        .where('tunnel_id', '=', tunnelId)
        .where('name', '=', name)
        .execute()
    }
    await trx
      .insertInto('tool_approvals')
      .values({
        id: `apr_${randomBytes(10).toString('hex')}`,
        tunnel_id: tunnelId,
        name,
        decision,
        hash: row.current_hash ?? null,
        decided_at: when,
        decided_by: by,
      })
      .execute()
    return 'decided'
  })
}

/**
 * The owner acknowledged that the removed tool `name` is gone: its row is deleted, unless it
 * remembers definitions its owner rejected, which it keeps as a forgotten tool's (pin-rows.ts
 * `isForgotten`), everything else of it emptied. Before, the rejections went with the row, and
 * the rejected definition listed again was merely `new`.
 */
async function forgetRemoved(trx: Kysely<Database>, tunnelId: string, name: string): Promise<void> {
  await trx
    .updateTable('tool_pins')
    .set({
      approved_hash: null,
      approved_body_hash: null,
      approved_definition: null,
      approved_form: null,
      current_hash: null,
      current_body_hash: null,
      current_definition: null,
      current_form: null,
      renamed_from: null,
      approved_at: null,
      approved_by: null,
    })
    .where('tunnel_id', '=', tunnelId)
    .where('name', '=', name)
    .where('status', '=', 'removed')
    .where('rejected_hashes', 'is not', null)
    .execute()
  await trx
    .deleteFrom('tool_pins')
    .where('tunnel_id', '=', tunnelId)
    .where('name', '=', name)
    .where('status', '=', 'removed')
    .where('rejected_hashes', 'is', null)
    .execute()
}
