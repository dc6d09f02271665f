/**
 * Fresh JSON-RPC ids for a replayed body: MCP forbids reusing a request id within a session, and
 * a server would otherwise take the replay for the agent's own call.
 */
import { isBodyProblem, readJsonRpcBody } from '@burrow/protocol'

/** Replace the ids of the JSON-RPC requests in `body` with `base`, `base.2`, … */
export function withFreshIds(
  body: Uint8Array,
  base: string,
): { body: Uint8Array; sentId: string | null; initialize: boolean } {
  const read = readJsonRpcBody(body)
  if (isBodyProblem(read)) return { body, sentId: null, initialize: false }
  let n = 0
  let first: string | null = null
  let initialize = false
  const rewritten = read.messages.map((m) => {
    // A request, or what reads as one (method and id) though not valid JSON-RPC: the server says.
    const isCall =
      m.kind === 'request' || (m.kind === 'invalid' && m.method !== null && m.id !== null)
    if (!isCall) return m.value
    n++
    if (m.method === 'initialize') initialize = true
    const id = n === 1 ? base : `${base}.${n}`
    first ??= id
    return { ...(m.value as Record<string, unknown>), id }
  })
  if (n === 0) return { body, sentId: null, initialize }
  const out = read.batch ? rewritten : rewritten[0]
  return { body: new TextEncoder().encode(JSON.stringify(out)), sentId: first, initialize }
}
