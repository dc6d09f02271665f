/**
 * The ids a refusal of each request answers, once the edge has read its body, for the refusals
 * made far from the body: when handling a request fails (Redis unreachable, a bug), the agent's
 * SDK still gets an error it can match to its call, instead of waiting for its own timeout.
 */
import type { IncomingMessage } from 'node:http'
import type { RefusedId } from '@burrow/protocol'

const ids = new WeakMap<IncomingMessage, RefusedId | RefusedId[]>()

/** The body of `req` was read: a refusal of it answers `refused`. */
export function noteRefusedIds(req: IncomingMessage, refused: RefusedId | RefusedId[]): void {
  if (refused !== null) ids.set(req, refused)
}

/** The ids a refusal of `req` answers (null before its body was read, or when it has none). */
export function refusedIdsOf(req: IncomingMessage): RefusedId | RefusedId[] {
  return ids.get(req) ?? null
}
