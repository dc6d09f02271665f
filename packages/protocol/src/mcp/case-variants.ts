/**
 * Member names that one server reads as another. Go's `encoding/json` (the Go MCP SDK before
 * 1.3.1, and Go servers built on it such as mcp-go) matches a struct's fields without case, and
 * folds `ſ` (U+017F) to `s` and `K` (U+212A) to `k`; of two members matching one field, the last
 * wins. So `{"method":"ping","Method":"tools/call"}` is a ping to the edge and a call to such a
 * server, and a response carrying `"Method":"tools/call","Params":{…}` a call the edge never
 * governs. An agent's message is therefore refused when its own members, or those of an object
 * directly in it (`params`, `result`, `error`, where JSON-RPC and MCP keep their fields), hold
 * two names that fold alike, or when it spells a JSON-RPC member (`jsonrpc`, `id`, `method`,
 * `params`, `result`, `error`) otherwise than exactly. Deeper objects (a tool's arguments) are
 * the tool's own and are left as they are.
 */
import { isRecord } from './json-rpc.js'

/** The JSON-RPC members of a message, spelled as JSON-RPC spells them. */
const ENVELOPE = new Set(['jsonrpc', 'id', 'method', 'params', 'result', 'error'])

/** `name` as Go's field matching sees it: two names a case-folding server reads as one fold alike. */
export function foldMemberName(name: string): string {
  // `K` (U+212A) lowercases to `k` already; `ſ` is lowercase and folds to `s`.
  const lower = name.toLowerCase()
  return lower.includes('ſ') ? lower.replace(/ſ/g, 's') : lower
}

/** A member name a case-folding server would read otherwise: folded, and why. */
export interface CaseVariant {
  readonly name: string
  /** Whether it is a member of the message itself (its `id` may be one of the two). */
  readonly inMessage: boolean
  readonly problem: string
}

/** A member name of `message` a case-folding server would read otherwise, or null. */
export function caseVariantOf(message: unknown): CaseVariant | null {
  if (!isRecord(message)) return null
  const own = variantIn(message, true)
  if (own !== null) return own
  for (const key of Object.keys(message)) {
    const value = message[key]
    if (!isRecord(value)) continue
    const inner = variantIn(value, false)
    if (inner !== null) return inner
  }
  return null
}

/**
 * A character that can make a name fold to another: an ASCII capital, or any character past ASCII
 * (`ſ`, `K`, and what `toLowerCase` maps otherwise). Names without one fold to themselves.
 */
const MAY_FOLD = /[A-Z\u0080-\uffff]/

function variantIn(object: Record<string, unknown>, envelope: boolean): CaseVariant | null {
  const keys = Object.keys(object)
  // Most messages: every name already folded. No two distinct names then fold alike, and none
  // spells a JSON-RPC member otherwise, so nothing is looked up or kept.
  let folded = true
  for (let i = 0; i < keys.length && folded; i++) folded = !MAY_FOLD.test(keys[i]!)
  if (folded) return null
  const seen = new Map<string, string>()
  for (const key of keys) {
    const folded = foldMemberName(key)
    if (envelope && folded !== key && ENVELOPE.has(folded)) {
      return {
        name: folded,
        inMessage: true,
        problem:
          `the member ${quoted(key)} is read as "${folded}" by servers that match names ` +
          `without case; spell it "${folded}"`,
      }
    }
    const other = seen.get(folded)
    if (other !== undefined) {
      return {
        name: folded,
        inMessage: true,
        problem:
          `the members ${quoted(other)} and ${quoted(key)} of one object differ only in case, ` +
          'and servers that match names without case read them as one; send one of them',
      }
    }
    seen.set(folded, key)
  }
  return null
}

function quoted(name: string): string {
  return JSON.stringify(name.length > 64 ? `${name.slice(0, 64)}…` : name)
}
