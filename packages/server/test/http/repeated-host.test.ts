import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { hasRepeatedHost } from '../../src/http/repeated-host.js'

describe('hasRepeatedHost', () => {
  it('finds Host named twice, in any case, and nothing else', () => {
    assert.equal(hasRepeatedHost(['Host', 'a', 'Accept', '*/*']), false)
    assert.equal(hasRepeatedHost([]), false)
    assert.equal(hasRepeatedHost(['Host', 'a', 'hOST', 'b']), true)
    assert.equal(hasRepeatedHost(['host', 'a', 'X-Host', 'b', 'Hosts', 'c']), false)
    assert.equal(hasRepeatedHost(['a', 'Host', 'Host', 'b']), false, 'a value is not a name')
  })
})
