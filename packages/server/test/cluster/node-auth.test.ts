// Node-to-node tokens: valid within a minute for the node they name, refused when forged,
// tampered, stale, malformed or for another node; nonces are good once.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { NodeTokenNonces, signNodeToken, verifyNodeToken } from '../../src/cluster/node-auth.js'

describe('node tokens', () => {
  const now = 1_800_000_000_000
  it('verify for the same secret and node within a minute', () => {
    const token = signNodeToken('s3cret', 'node-a', 'node-b', now)
    assert.equal(verifyNodeToken('s3cret', token, 'node-b', now + 59_000)?.from, 'node-a')
    assert.equal(verifyNodeToken('s3cret', token, 'node-b', now - 59_000)?.from, 'node-a')
  })

  it('are refused when forged, tampered, stale, malformed or for another node', () => {
    const token = signNodeToken('s3cret', 'node-a', 'node-b', now)
    assert.equal(verifyNodeToken('other', token, 'node-b', now), null)
    assert.equal(verifyNodeToken('s3cret', token.replace('node-a', 'node-x'), 'node-b', now), null)
    assert.equal(verifyNodeToken('s3cret', token, 'node-c', now), null)
    assert.equal(
      verifyNodeToken('s3cret', token.replace('node-b', 'node-c'), 'node-c', now),
      null,
      'the node a token is for is under its MAC',
    )
    assert.equal(verifyNodeToken('s3cret', token, 'node-b', now + 61_000), null)
    for (const bad of ['', 'a.b', 'a.b.c.d', 'node a.b.1.x.y', `node-a.node-b.${now}.x.y`])
      assert.equal(verifyNodeToken('s3cret', bad, 'node-b', now), null, bad)
  })

  it('are good once, and the nonces remembered stay bounded', () => {
    const nonces = new NodeTokenNonces(2)
    const verify = (t: string) => verifyNodeToken('s3cret', t, 'node-b', now)!
    const first = verify(signNodeToken('s3cret', 'node-a', 'node-b', now))
    assert.equal(nonces.first(first, now), true)
    assert.equal(nonces.first(first, now), false)
    assert.equal(nonces.first(verify(signNodeToken('s3cret', 'node-a', 'node-b', now)), now), true)
    // Full of unexpired nonces: refused rather than forgotten.
    const third = verify(signNodeToken('s3cret', 'node-a', 'node-b', now))
    assert.equal(nonces.first(third, now), false)
    // Once they expire, there is room again.
    assert.equal(nonces.first(third, now + 122_000), true)
  })
})
