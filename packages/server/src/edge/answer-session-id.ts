/**
 * The session id an answer gives, as the edge checks it before the agent sees it. The edge counts
 * sessions by this id against the plan's cap (quota/edge-sessions.ts), and MCP allows only
 * visible ASCII in it. An answer with an id outside that (`a b`), or with two `Mcp-Session-Id`
 * fields, which an agent reads joined (`one, two`), opened a session the edge could not count:
 * its place was given back and every request naming it went on uncounted.
 */
import type { HeaderPairs } from '@burrow/protocol'
import { MCP_SESSION_ID } from '../quota/check-session-input.js'

/** Why the edge will not pass on an answer with `headers`, or null. */
export function answerSessionIdProblem(headers: HeaderPairs): string | null {
  let seen = false
  for (const [name, value] of headers) {
    if (name.length !== 14 || name.toLowerCase() !== 'mcp-session-id') continue
    if (seen) return 'the local server answered with more than one session id (Mcp-Session-Id)'
    seen = true
    if (!MCP_SESSION_ID.test(value)) {
      return 'the local server answered with a session id MCP does not allow (Mcp-Session-Id: visible ASCII only)'
    }
  }
  return null
}
