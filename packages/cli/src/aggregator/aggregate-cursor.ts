/**
 * Pagination cursors of the aggregator. A `*\/list` walks the upstreams in order, one upstream
 * page per agent page, so a cursor names the list, the upstream to ask next and that upstream's
 * own cursor (absent for its first page). Agents treat cursors as opaque (MCP pagination); they
 * are base64url JSON so that any tampering is detected and answered with -32602.
 */
import { JSONRPC_CODE } from '@burrow/protocol'
import { RpcError } from './rpc-error.js'

/** Where the next page of a list comes from. */
export interface AggregateCursor {
  /** Name of the upstream to ask. */
  readonly upstream: string
  /** That upstream's cursor; undefined for its first page. */
  readonly cursor: string | undefined
}

interface Encoded {
  readonly v: 1
  readonly m: string
  readonly u: string
  readonly c?: string
}

/** The opaque cursor for `position` in list `method`. */
export function encodeCursor(method: string, position: AggregateCursor): string {
  const encoded: Encoded = { v: 1, m: method, u: position.upstream }
  const withCursor = position.cursor === undefined ? encoded : { ...encoded, c: position.cursor }
  return Buffer.from(JSON.stringify(withCursor)).toString('base64url')
}

/**
 * The position a cursor stands for. Throws an `RpcError` (-32602, invalid params) for anything
 * that is not a cursor the aggregator issued for this list and one of these upstreams.
 */
export function decodeCursor(
  method: string,
  cursor: unknown,
  upstreams: readonly string[],
): AggregateCursor {
  const invalid = (why: string): RpcError =>
    new RpcError(JSONRPC_CODE.invalidParams, `invalid cursor for ${method}: ${why}`)
  if (typeof cursor !== 'string' || !/^[A-Za-z0-9_-]+$/.test(cursor)) {
    throw invalid('not a cursor this server issued')
  }
  let value: Partial<Encoded>
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Partial<Encoded>
  } catch {
    throw invalid('not a cursor this server issued')
  }
  if (typeof value !== 'object' || value === null || value.v !== 1) {
    throw invalid('not a cursor this server issued')
  }
  if (value.m !== method) throw invalid(`it was issued for ${String(value.m)}`)
  if (typeof value.u !== 'string' || !upstreams.includes(value.u)) {
    throw invalid('it names no configured upstream')
  }
  if (value.c !== undefined && typeof value.c !== 'string') throw invalid('malformed')
  return { upstream: value.u, cursor: value.c }
}
