/**
 * Fresh JSON-RPC ids for a replayed body: MCP forbids reusing a request id within a session, and
 * a server would otherwise take the replay for the agent's own call.
 */
import { isRecord } from './json-rpc-summary.js'

/** Replace the ids of the JSON-RPC requests in `body` with `base`, `base.2`, … */
export function withFreshIds(
  body: Uint8Array,
  base: string,
): { body: Uint8Array; sentId: string | null; initialize: boolean } {
  let value: unknown
  try {
    value = JSON.parse(new TextDecoder().decode(body))
  } catch {
    return { body, sentId: null, initialize: false }
  }
  const batch = Array.isArray(value)
  const messages: unknown[] = batch ? (value as unknown[]) : [value]
  let n = 0
  let first: string | null = null
  let initialize = false
  const rewritten = messages.map((m) => {
    if (!isRecord(m) || typeof m.method !== 'string' || m.id === undefined || m.id === null)
      return m
    n++
    if (m.method === 'initialize') initialize = true
    const id = n === 1 ? base : `${base}.${n}`
    first ??= id
    return { ...m, id }
  })
  if (n === 0) return { body, sentId: null, initialize }
  const out = batch ? rewritten : rewritten[0]
  return { body: new TextEncoder().encode(JSON.stringify(out)), sentId: first, initialize }
}
