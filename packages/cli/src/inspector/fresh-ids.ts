/**
 * Fresh JSON-RPC ids for a replayed body: MCP forbids reusing a request id within a session, and
 * a server would otherwise take the replay for the agent's own call. Only the ids change: they
 * are replaced where they stand in the text, and everything else is sent as the agent sent it
 * (parsed and written again, a number past 2^53 in a tool's arguments lost its last digits).
 */
import { isBodyProblem, memberSpans, readJsonRpcBody } from '@burrow/protocol'

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
  /** The new id of each message that gets one, by its place in the body. */
  const ids = new Map<number, string>()
  read.messages.forEach((m, k) => {
    // A request, or what reads as one (method and id) though not valid JSON-RPC: the server says.
    const isCall =
      m.kind === 'request' || (m.kind === 'invalid' && m.method !== null && m.id !== null)
    if (!isCall) return
    n++
    if (m.method === 'initialize') initialize = true
    const id = n === 1 ? base : `${base}.${n}`
    first ??= id
    ids.set(k, id)
  })
  if (n === 0) return { body, sentId: null, initialize }
  const text = new TextDecoder().decode(body)
  const spans = memberSpans(text, 'id')
  if (spans === null || spans.length !== read.messages.length) {
    // Not reached for a body the reader accepted: written again from its values.
    const rewritten = read.messages.map((m, k) =>
      ids.has(k) ? { ...(m.value as Record<string, unknown>), id: ids.get(k) } : m.value,
    )
    const out = JSON.stringify(read.batch ? rewritten : rewritten[0])
    return { body: new TextEncoder().encode(out), sentId: first, initialize }
  }
  // Every `id` member of a call (a repeated one too, whichever the server reads), last first so
  // that the earlier positions still hold.
  const replace = [...ids].flatMap(([k, id]) =>
    spans[k]!.map(([start, end]) => ({ start, end, id })),
  )
  replace.sort((a, b) => b.start - a.start)
  let out = text
  for (const { start, end, id } of replace)
    out = out.slice(0, start) + JSON.stringify(id) + out.slice(end)
  return { body: new TextEncoder().encode(out), sentId: first, initialize }
}
