// The typo distance behind "did you mean": a swap is one edit, and far-off words suggest nothing.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { closestName, editDistance } from '../src/did-you-mean.js'

describe('closestName', () => {
  it('counts insertions, deletions, substitutions and neighbour swaps as one edit each', () => {
    assert.equal(editDistance('stdio', 'stdio'), 0)
    assert.equal(editDistance('stdoi', 'stdio'), 1)
    assert.equal(editDistance('brokr', 'broker'), 1)
    assert.equal(editDistance('api_key', 'api-key'), 1)
    assert.equal(editDistance('', 'up'), 2)
  })

  it('picks the nearest candidate within reach, else none', () => {
    const names = ['upstream', 'upstreams-file', 'stdio', 'inspect', 'inspect-addr']
    assert.equal(closestName('upstreams', names), 'upstream')
    assert.equal(closestName('inspect-add', names), 'inspect-addr')
    assert.equal(closestName('STDIO', names), 'stdio')
    assert.equal(closestName('zzzzzz', names), null)
    assert.equal(closestName('upp', ['up', 'detect']), 'up')
    assert.equal(closestName('x', ['up', 'detect']), null)
  })
})
