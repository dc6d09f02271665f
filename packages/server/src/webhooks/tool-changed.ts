/**
 * `tool.changed` (docs/webhooks.md#toolchanged): a tool of a tunnel changed since its owner
 * approved it (or appeared, vanished or was renamed). One event per change: the edge records a
 * change once (a conditional write, also across nodes) and only that writer queues the event;
 * its `webhook-id` is derived from the tunnel, the tool, the change and when it was seen, so a
 * repeat of the same event is one receivers drop.
 */
import { createHash } from 'node:crypto'
import type { Kysely } from 'kysely'
import type { Database } from '../store/schema.js'
import { enqueueWebhookEvent } from './webhook-outbox.js'

/** What the rug-pull code knows of a change. */
export interface ToolChangedInput {
  readonly accountId: string
  readonly tunnelId: string
  readonly tunnelName: string | null
  readonly tool: string
  readonly change: 'changed' | 'new' | 'removed' | 'renamed'
  readonly renamedFrom: string | null
  readonly approvedHash: string | null
  readonly currentHash: string | null
  readonly at: Date
}

/** Queue `tool.changed` to the account's subscribed endpoints. */
export async function emitToolChanged(
  db: Kysely<Database>,
  input: ToolChangedInput,
): Promise<boolean> {
  const key = createHash('sha256')
    .update(
      `${input.tunnelId}|${input.tool}|${input.change}|${input.currentHash ?? 'gone'}|${input.at.toISOString()}`,
    )
    .digest('hex')
    .slice(0, 32)
  const queued = await enqueueWebhookEvent(db, {
    accountId: input.accountId,
    type: 'tool.changed',
    id: `tc_${key}`,
    data: {
      tunnel: { id: input.tunnelId, name: input.tunnelName },
      tool: input.tool,
      change: input.change,
      renamed_from: input.renamedFrom,
      approved_hash: input.approvedHash,
      current_hash: input.currentHash,
    },
    occurredAt: input.at,
  })
  return queued > 0
}
