/**
 * The call history of a tunnel as the Traffic tab and `GET /api/tunnels/:id/calls` read it:
 * newest first, filtered by tool, method, status or outcome and time, a page at a time with an
 * opaque cursor (the last id of the page: ids are time-ordered).
 */
import type { Kysely, Selectable } from 'kysely'
import type { Database } from '../store/schema.js'

/** One call as shown. Bodies are the stored (redacted, cut) JSON text, or null. */
export interface CallView {
  readonly id: string
  readonly at: string
  readonly sessionId: string | null
  readonly rpcId: string | null
  /** The agent the access gate admitted, or null (public tunnels, older calls). */
  readonly agent: string | null
  readonly method: string
  readonly tool: string | null
  readonly status: number
  readonly outcome: string
  readonly policyCode: string | null
  readonly durationMs: number
  readonly bytesIn: number | null
  readonly bytesOut: number | null
  readonly requestBody: string | null
  readonly responseBody: string | null
  readonly bodiesCut: boolean
  /** The call this 2026-07-28 retry continues (the first of its chain), or null. */
  readonly continues: string | null
}

/** Filters of a page. */
export interface CallFilter {
  readonly tool?: string
  readonly method?: string
  /** An HTTP status, or an outcome: `ok`, `error`, `refused`. */
  readonly status?: number | 'ok' | 'error' | 'refused'
  readonly since?: Date
  readonly cursor?: string
  readonly limit?: number
}

const MAX_PAGE = 200

/**
 * Calls a filtered page looks through at most: the newest below its cursor. A filter matching
 * nothing in a tunnel's history (60 days of millions of calls on Scale) made each page read
 * every row of it; now a page reads at most this many, and when it found fewer matches than
 * its limit, its cursor says where to look on.
 */
export const CALLS_SCANNED_PER_PAGE = 5_000

/**
 * A page of calls and the cursor of the next one (null at the end). With a filter, a page may
 * hold fewer calls than its limit, none even, and still name a next cursor.
 */
export async function listCalls(
  db: Kysely<Database>,
  tunnelId: string,
  filter: CallFilter = {},
): Promise<{ calls: CallView[]; nextCursor: string | null }> {
  const limit = Math.min(MAX_PAGE, Math.max(1, filter.limit ?? 50))
  let q = db.selectFrom('call_history').selectAll().where('tunnel_id', '=', tunnelId)
  if (filter.cursor !== undefined) q = q.where('id', '<', filter.cursor)
  const filtered =
    filter.tool !== undefined ||
    filter.method !== undefined ||
    filter.status !== undefined ||
    filter.since !== undefined
  // The oldest call the page may look at (by the (tunnel_id, id) index), when there are more.
  const edge = filtered ? await scanEdge(db, tunnelId, filter.cursor) : undefined
  if (edge !== undefined) q = q.where('id', '>=', edge.id)
  if (filter.tool !== undefined) q = q.where('tool', '=', filter.tool)
  if (filter.method !== undefined) q = q.where('method', '=', filter.method)
  if (typeof filter.status === 'number') q = q.where('status', '=', filter.status)
  else if (filter.status !== undefined) q = q.where('outcome', '=', filter.status)
  if (filter.since !== undefined) q = q.where('at', '>=', filter.since.toISOString())
  const rows = await q
    .orderBy('id', 'desc')
    .limit(limit + 1)
    .execute()
  const calls = rows.slice(0, limit).map(toView)
  if (rows.length > limit) return { calls, nextCursor: calls[calls.length - 1]!.id }
  // Fewer matches than the limit among the calls looked at: go on below them, unless they
  // reached the start of the history or of `since`.
  const older =
    edge !== undefined && !(filter.since !== undefined && edge.at < filter.since.toISOString())
  return { calls, nextCursor: older ? edge.id : null }
}

/** The `CALLS_SCANNED_PER_PAGE`th newest call below `cursor`, or undefined when there are fewer. */
async function scanEdge(
  db: Kysely<Database>,
  tunnelId: string,
  cursor: string | undefined,
): Promise<{ id: string; at: string } | undefined> {
  let q = db.selectFrom('call_history').select(['id', 'at']).where('tunnel_id', '=', tunnelId)
  if (cursor !== undefined) q = q.where('id', '<', cursor)
  return q
    .orderBy('id', 'desc')
    .offset(CALLS_SCANNED_PER_PAGE - 1)
    .limit(1)
    .executeTakeFirst()
}

/** One call of the tunnel, or undefined. */
export async function getCall(
  db: Kysely<Database>,
  tunnelId: string,
  callId: string,
): Promise<CallView | undefined> {
  const row = await db
    .selectFrom('call_history')
    .selectAll()
    .where('tunnel_id', '=', tunnelId)
    .where('id', '=', callId)
    .executeTakeFirst()
  return row === undefined ? undefined : toView(row)
}

function toView(r: Selectable<Database['call_history']>): CallView {
  const n = (v: number | null | undefined) => (v === null || v === undefined ? null : Number(v))
  return {
    id: r.id,
    at: r.at,
    sessionId: r.session_id ?? null,
    rpcId: r.rpc_id ?? null,
    agent: r.agent ?? null,
    method: r.method,
    tool: r.tool ?? null,
    status: Number(r.status),
    outcome: r.outcome ?? (r.policy_code === null ? 'ok' : 'refused'),
    policyCode: r.policy_code ?? null,
    durationMs: Number(r.duration_ms),
    bytesIn: n(r.bytes_in),
    bytesOut: n(r.bytes_out),
    requestBody: r.request_body ?? null,
    responseBody: r.response_body ?? null,
    bodiesCut: Number(r.bodies_cut ?? 0) === 1,
    continues: r.continues ?? null,
  }
}
