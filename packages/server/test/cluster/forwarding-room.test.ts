// A request head the edge accepts still crosses the tunnel once forwarded to the node holding it:
// the edge checks heads leaving room for the header forwarding adds, at both of the frame's
// limits (header pairs and encoded size).
import assert from 'node:assert/strict'
import { it } from 'node:test'
import {
  encodeFrame,
  MAX_HEADER_PAIRS,
  MAX_META_BYTES,
  requestHeadProblem,
  type RequestHead,
} from '@burrow/protocol'
import { FORWARDED_TUNNEL_HEADER, FORWARDING_ROOM } from '../../src/cluster/cluster-router.js'

/** The head as the forwarding node sends it (a long tunnel id and the largest epoch). */
function forwarded(head: RequestHead): RequestHead {
  const tag = `tun_${'f'.repeat(20)}.${Number.MAX_SAFE_INTEGER}`
  return { ...head, headers: [...head.headers, [FORWARDED_TUNNEL_HEADER, tag]] }
}

it('leaves room for the forwarding header in count and in size', () => {
  const base: RequestHead = { method: 'POST', path: '/mcp', headers: [] }
  // Header counts and sizes right at the edge's limit, and around it.
  const heads: RequestHead[] = []
  for (const n of [MAX_HEADER_PAIRS - 2, MAX_HEADER_PAIRS - 1, MAX_HEADER_PAIRS]) {
    heads.push({ ...base, headers: Array.from({ length: n }, (_, i) => [`h${i}`, 'v'] as const) })
  }
  for (let size = MAX_META_BYTES - 200; size <= MAX_META_BYTES; size += 8) {
    heads.push({ ...base, headers: [['x-pad', 'a'.repeat(size)]] })
  }
  let accepted = 0
  for (const head of heads) {
    if (requestHeadProblem(head, FORWARDING_ROOM) !== null) continue
    accepted++
    const next = forwarded(head)
    assert.equal(requestHeadProblem(next), null, `${next.headers.length} headers`)
    assert.doesNotThrow(() => encodeFrame({ type: 'open', streamId: 1, head: next, fin: true }))
  }
  assert.ok(accepted > 2, 'heads near the limit are still accepted')
})
