/**
 * What the edge reads of a `tools/list` exchange for rug-pull protection, and bounds in the
 * answer it pins or filters (govern-request.ts).
 *
 * An empty cursor is no cursor. MCP says a `nextCursor` that is present means there may be more
 * results, but agents end a list at an empty one (most SDKs test the cursor's truth; Go's cannot
 * tell `""` from none): the edge waited for a next page that never came, so a tool renamed on
 * such a page was never judged (passed with no alert in `alert` mode) and a removal never told,
 * and a first list ending so kept every other listing's new tools held for 60 s. A request with
 * an empty cursor asks for a first page, as servers that read it as none answer it.
 *
 * Caching hints (MCP 2026-07-28): a listing the edge pins or filters may show another tool set
 * after the owner's next decision, which no client hears of (the edge sends no `list_changed`),
 * so a `ttlMs` it carries is set to 0 (stale at once); `cacheScope` is left as sent (it says who
 * may share the result, which is the same for every agent of a tunnel, and with `ttlMs: 0`
 * nothing keeps it in either scope).
 */
import type { ClassifiedMessage } from '@burrow/protocol'

/** A `tools/list` request's `params.cursor`, or null for a first page (none, or empty). */
export function requestedCursor(m: Pick<ClassifiedMessage, 'value'>): string | null {
  const params = (m.value as { params?: unknown }).params
  const cursor = (params as { cursor?: unknown } | null | undefined)?.cursor
  return typeof cursor === 'string' && cursor !== '' ? cursor : null
}

/** A `tools/list` answer's `result.nextCursor`, or null when the list ends there (none, or empty). */
export function nextCursorOf(response: Readonly<Record<string, unknown>>): string | null {
  const next = (response.result as { nextCursor?: unknown } | null | undefined)?.nextCursor
  return typeof next === 'string' && next !== '' ? next : null
}

/** `response` with a `result.ttlMs` other than 0 set to 0; `response` itself when it has none. */
export function withoutLongCaching<T extends Readonly<Record<string, unknown>>>(response: T): T {
  const result = response.result as Readonly<Record<string, unknown>> | null | undefined
  if (typeof result !== 'object' || result === null || Array.isArray(result)) return response
  if (!('ttlMs' in result) || result.ttlMs === 0) return response
  return { ...response, result: { ...result, ttlMs: 0 } }
}
