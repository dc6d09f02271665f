/**
 * The `requestState`s an agent's POST body presents to a local HTTP server (MCP 2026-07-28: a
 * retry carries the state of the answer that asked for input in its `params`), so that
 * `burrow up` can check each was given to that agent (`request-state-owners.ts`).
 *
 * Most bodies present none, and are not parsed: only a body whose bytes could spell the member
 * is read. Servers do not all read names as `JSON.parse` does: Go's `encoding/json` matches them
 * without case and folds `ſ` to `s`, and any parser reads `\u` escapes, so a body is read when
 * it holds `requeststate` in any case (an `s` also written as `ſ`) or any `\u` escape; and every
 * member of `params` (itself in any case) that folds to `requeststate` counts. Such a body that
 * cannot be read, or holds a message that is not valid JSON-RPC (one naming a member twice in one
 * object, of which servers differ on which they read), presents something unreadable
 * (`UNREADABLE`), which is refused: the edge forwards neither, so no agent it admitted sends one.
 */
import { foldMemberName, isBodyProblem, isRecord, readJsonRpcBody } from '@burrow/protocol'

/** A body whose states cannot be told (not JSON, or a message naming a member twice). */
export const UNREADABLE = Symbol('unreadable')

/**
 * `requeststate` in any case, each `s` also as the UTF-8 bytes of `ſ` read as Latin-1, or a `\u`
 * escape: what a body must hold to present a state to some server.
 */
const MIGHT_PRESENT = /reque(?:s|\u00c5\u00bf)t(?:s|\u00c5\u00bf)tate|\\u/i

const FOLDED_PARAMS = 'params'
const FOLDED_STATE = 'requeststate'

/**
 * The string `requestState`s the messages of `body` present (empty for most bodies), or
 * `UNREADABLE`. Values of other types are left to the server, which refuses them.
 */
export function presentedStates(body: Uint8Array): string[] | typeof UNREADABLE {
  if (body.length === 0) return []
  const bytes = Buffer.isBuffer(body)
    ? body
    : Buffer.from(body.buffer, body.byteOffset, body.byteLength)
  if (!MIGHT_PRESENT.test(bytes.toString('latin1'))) return []
  const read = readJsonRpcBody(bytes)
  if (isBodyProblem(read)) return UNREADABLE
  const states: string[] = []
  for (const m of read.messages) {
    if (m.kind === 'invalid') return UNREADABLE
    collect(m.value, states)
  }
  return states
}

/** Add the string states of `message`'s `params` (its members named in any case) to `out`. */
function collect(message: unknown, out: string[]): void {
  if (!isRecord(message)) return
  for (const name of Object.keys(message)) {
    const params = message[name]
    if (!isRecord(params) || foldMemberName(name) !== FOLDED_PARAMS) continue
    for (const key of Object.keys(params)) {
      const value = params[key]
      if (typeof value === 'string' && foldMemberName(key) === FOLDED_STATE) out.push(value)
    }
  }
}
