/**
 * `tool.changed` (docs/webhooks.md#toolchanged): a tool of a tunnel changed since its owner
 * approved it (or appeared, vanished or was renamed). One event per change: the edge records a
 * change once (a conditional write, also across nodes) and only that writer queues the event;
 * its `webhook-id` is derived from the tunnel, the tool, the change and when it was seen, so a
 * repeat of the same event is one receivers drop. The tunnel's local server decides how many
 * changes there are, so a tunnel raises at most `TOOL_CHANGED_PER_TUNNEL_PER_HOUR` events an hour
 * on a node; the dashboard shows every change.
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
  /** Another tool of the tunnel whose name this one's looks like, or null. */
  readonly looksLike: string | null
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
      looks_like: input.looksLike,
      approved_hash: input.approvedHash,
      current_hash: input.currentHash,
    },
    occurredAt: input.at,
  })
  return queued > 0
}

/**
 * `tool.changed` events one tunnel raises in an hour on a node. A server that changes its tools
 * on every listing would otherwise have burrowd send without end; past this, the owner has been
 * told of that many changes already, and the dashboard shows the rest.
 */
export const TOOL_CHANGED_PER_TUNNEL_PER_HOUR = 20

/** How many of something each key may have per clock hour. */
export class HourlyBudget {
  readonly #perHour: number
  readonly #used = new Map<string, { hour: number; count: number }>()

  constructor(perHour: number) {
    this.#perHour = perHour
  }

  /** Take one of `key`'s budget at `nowMs`; false when this hour's is spent. */
  take(key: string, nowMs: number): boolean {
    const hour = Math.floor(nowMs / 3_600_000)
    let used = this.#used.get(key)
    if (used === undefined || used.hour !== hour) {
      if (this.#used.size >= 100_000) {
        for (const [k, v] of this.#used) if (v.hour !== hour) this.#used.delete(k)
      }
      used = { hour, count: 0 }
      this.#used.set(key, used)
    }
    used.count++
    return used.count <= this.#perHour
  }

  /** How many of `key`'s takes this hour were refused (after `take`: 1 for the first). */
  refused(key: string): number {
    return Math.max(0, (this.#used.get(key)?.count ?? 0) - this.#perHour)
  }
}
