// Text cut to a length for showing: whole when short, else cut with "…", never a split pair.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { cutText } from '../src/cut-text.js'

describe('cutText', () => {
  it('keeps short text and cuts long text with an ellipsis', () => {
    assert.equal(cutText('abc', 3), 'abc')
    assert.equal(cutText('abcd', 3), 'abc…')
    assert.equal(cutText('x'.repeat(4 * 1024 * 1024), 200), `${'x'.repeat(200)}…`)
  })

  it('drops a surrogate pair split at the cut whole', () => {
    assert.equal(cutText('ab\u{1f600}c', 3), 'ab…')
    assert.equal(cutText('ab\u{1f600}c', 4), 'ab\u{1f600}…')
  })
})
