/**
 * Pagination cursors of the aggregator. An agent page of a `*\/list` holds one page of every
 * upstream still listing: the first page holds each upstream's first page, and a cursor names the
 * list and, for each upstream that itself paginates, that upstream's own next cursor. Agents treat
 * cursors as opaque (MCP pagination); they are base64url JSON, and anything that is not a cursor
 * the aggregator issued for this list and these upstreams is answered with -32602.
 */
import { JSONRPC_CODE } from '@burrow/protocol'
import { RpcError } from '../front/rpc-error.js'

/** Where a list continues: an upstream and its own cursor for its next page. */
export interface AggregateCursor {
  /** Name of the upstream to ask. */
  readonly upstream: string
  /** That upstream's cursor. */
  readonly cursor: string
}

interface Encoded {
  readonly v: 2
  readonly m: string
  /** [upstream, cursor] pairs, in list order. */
  readonly p: readonly (readonly [string, string])[]
}

/** The opaque cursor for the continuations `positions` (not empty) of list `method`. */
export function encodeCursor(method: string, positions: readonly AggregateCursor[]): string {
  const encoded: Encoded = { v: 2, m: method, p: positions.map((p) => [p.upstream, p.cursor]) }
  return Buffer.from(JSON.stringify(encoded)).toString('base64url')
}

/**
 * The continuations a cursor stands for. Throws an `RpcError` (-32602, invalid params) for anything
 * that is not a cursor the aggregator issued for this list and these upstreams.
 */
export function decodeCursor(
  method: string,
  cursor: unknown,
  upstreams: readonly string[],
): AggregateCursor[] {
  const invalid = (why: string): RpcError =>
    new RpcError(JSONRPC_CODE.invalidParams, `invalid cursor for ${method}: ${why}`)
  const notOurs = (): RpcError => invalid('not a cursor this server issued')
  if (typeof cursor !== 'string' || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw notOurs()
  let value: Partial<Encoded>
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Partial<Encoded>
  } catch {
    throw notOurs()
  }
  if (typeof value !== 'object' || value === null || value.v !== 2) throw notOurs()
  if (value.m !== method) throw invalid(`it was issued for ${String(value.m)}`)
  if (!Array.isArray(value.p) || value.p.length === 0) throw invalid('malformed')
  // One position per upstream at most, as issued: each position is a page fetched and merged,
  // and a cursor naming one upstream 300,000 times made one request worth as many of its pages
  // (gigabytes in `burrow up`, its tunnel offline for every agent: found by a hostile review).
  if (value.p.length > upstreams.length) throw invalid('it names more positions than upstreams')
  const named = new Set<string>()
  const positions: AggregateCursor[] = []
  for (const pair of value.p as unknown[]) {
    if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[1] !== 'string') {
      throw invalid('malformed')
    }
    const [upstream, upstreamCursor] = pair as [unknown, string]
    if (typeof upstream !== 'string' || !upstreams.includes(upstream)) {
      throw invalid('it names no configured upstream')
    }
    if (named.has(upstream)) throw invalid(`it names the upstream "${upstream}" twice`)
    named.add(upstream)
    positions.push({ upstream, cursor: upstreamCursor })
  }
  return positions
}
