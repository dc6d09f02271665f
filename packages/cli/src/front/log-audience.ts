/**
 * Who hears a log line (`notifications/message`) of a stdio server. A 2025 session hears the
 * server's whole log, as a client of the server's own would. A 2026-07-28 call (a seat: its sink
 * has an ask group) asks for the lines of its own request (`_meta` logLevel), and stdio does not
 * say which call a line is for: so a seat hears a line only when its call is the one a question
 * would be placed with (`CallTable.askCause`: the latest call in flight, every call in flight
 * being one agent's), on that call's stream. Broadcast, a line the server wrote while serving
 * one agent's call reached every other agent's call that asked for logs. A 2025 session that set
 * a level with `logging/setLevel` hears only the lines at or above it (`LogLevels`).
 */
import type { JsonRpcId } from '@burrow/protocol'
import type { ChildCall } from './call-table.js'
import type { LogLevels } from './log-levels.js'
import type { StdioSession } from './stdio-session.js'

/** The sessions the log line `params` goes to, each with the request it travels with (if any). */
export function logAudience(
  sessions: Iterable<StdioSession>,
  cause: ChildCall | 'unplaced' | undefined,
  levels: LogLevels,
  params: Readonly<Record<string, unknown>>,
): [StdioSession, JsonRpcId | undefined][] {
  const call = cause === 'unplaced' ? undefined : cause
  const audience: [StdioSession, JsonRpcId | undefined][] = []
  for (const session of sessions) {
    if (session.sink.askGroup === undefined) {
      if (levels.hears(session.id, params.level)) audience.push([session, undefined])
    } else if (call?.session === session) audience.push([session, call.agentId])
  }
  return audience
}
