// Node-to-node tokens: valid within a minute, refused when forged, tampered, stale or malformed.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { signNodeToken, verifyNodeToken } from '../../src/cluster/node-auth.js'

describe('node tokens', () => {
  const now = 1_800_000_000_000
  it('verify for the same secret within a minute', () => {
    const token = signNodeToken('s3cret', 'node-a', now)
    assert.equal(verifyNodeToken('s3cret', token, now + 59_000), 'node-a')
    assert.equal(verifyNodeToken('s3cret', token, now - 59_000), 'node-a')
  })

  it('are refused when forged, tampered, stale or malformed', () => {
    const token = signNodeToken('s3cret', 'node-a', now)
    assert.equal(verifyNodeToken('other', token, now), null)
    assert.equal(verifyNodeToken('s3cret', token.replace('node-a', 'node-b'), now), null)
    assert.equal(verifyNodeToken('s3cret', token, now + 61_000), null)
    for (const bad of ['', 'a.b', 'a.b.c.d', 'node a.1.x', `node-a.${now}.x`])
      assert.equal(verifyNodeToken('s3cret', bad, now), null, bad)
  })
})
