/** The aggregator's own pagination cursors: round trip, and -32602 for anything else. */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { decodeCursor, encodeCursor } from '../../src/aggregator/aggregate-cursor.js'
import { RpcError } from '../../src/front/rpc-error.js'

const upstreams = ['a', 'b']

function invalid(cursor: unknown, method = 'tools/list'): RpcError {
  try {
    decodeCursor(method, cursor, upstreams)
  } catch (err) {
    assert.ok(err instanceof RpcError)
    assert.equal(err.code, -32602)
    return err
  }
  throw new Error(`accepted ${String(cursor)}`)
}

describe('aggregate cursors', () => {
  it('round-trip each paginating upstream and its own cursor, opaque to the agent', () => {
    const positions = [
      { upstream: 'a', cursor: 'page=2&x' },
      { upstream: 'b', cursor: '' },
    ]
    const cursor = encodeCursor('tools/list', positions)
    assert.match(cursor, /^[A-Za-z0-9_-]+$/)
    assert.ok(!cursor.includes('page'))
    assert.deepEqual(decodeCursor('tools/list', cursor, upstreams), positions)
  })

  it('refuse garbage, other lists, unknown upstreams and tampering with -32602', () => {
    invalid('not ours!')
    invalid(42)
    invalid(Buffer.from('{"v":1,"m":"tools/list","u":"a"}').toString('base64url'))
    invalid(Buffer.from('{"v":2,"m":"tools/list","p":[]}').toString('base64url'))
    invalid(Buffer.from('[1]').toString('base64url'))
    const other = encodeCursor('prompts/list', [{ upstream: 'a', cursor: 'c' }])
    assert.match(invalid(other).message, /issued for prompts\/list/)
    const gone = encodeCursor('tools/list', [{ upstream: 'zz', cursor: 'c' }])
    assert.match(invalid(gone).message, /names no configured upstream/)
    const bad = Buffer.from('{"v":2,"m":"tools/list","p":[["a",7]]}').toString('base64url')
    invalid(bad)
  })

  it('hostile: refuse a cursor naming an upstream twice, or more positions than upstreams', () => {
    // One request worth 300,000 of an upstream's pages: gigabytes merged in `burrow up`.
    const many = Array.from({ length: 300_000 }, () => ({ upstream: 'a', cursor: '' }))
    assert.match(invalid(encodeCursor('tools/list', many)).message, /more positions than upstreams/)
    const twice = [
      { upstream: 'a', cursor: '' },
      { upstream: 'a', cursor: 'p2' },
    ]
    assert.match(invalid(encodeCursor('tools/list', twice)).message, /names the upstream "a" twice/)
    // In either order, each upstream once, as issued.
    const both = [
      { upstream: 'b', cursor: 'x' },
      { upstream: 'a', cursor: '' },
    ]
    assert.deepEqual(decodeCursor('tools/list', encodeCursor('tools/list', both), upstreams), both)
  })
})
