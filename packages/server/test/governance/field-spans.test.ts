// Spans of secrets in header fields: a joined scan cut back to the fields, overlaps joined.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { addJoinedSpans, mergeSpans, type Span } from '../../src/governance/field-spans.js'

describe('field spans', () => {
  it('cuts a span of the joined text to every field it covers, past the separators', () => {
    const values = ['abcd', 'efgh', 'ijkl']
    const into: (Span[] | null)[] = [[], [], null]
    // "abcd, efgh, ijkl": 2..12 covers "cd", ", ", "efgh", ", ", "ij".
    addJoinedSpans(values, ', ', [[2, 14, 'x']], into)
    assert.deepEqual(into, [[[2, 4, 'x']], [[0, 4, 'x']], null])
  })

  it('leaves fields a span does not reach, and a span only over a separator touches none', () => {
    const into: Span[][] = [[], []]
    addJoinedSpans(['ab', 'cd'], ', ', [[2, 4, 'x']], into)
    assert.deepEqual(into, [[], []])
  })

  it('joins overlapping spans into one, named as the first, so that nothing is half masked', () => {
    assert.deepEqual(
      mergeSpans([
        [5, 9, 'b'],
        [0, 6, 'a'],
        [9, 12, 'c'],
        [20, 30, 'd'],
        [21, 25, 'e'],
      ]),
      [
        [0, 9, 'a'],
        [9, 12, 'c'],
        [20, 30, 'd'],
      ],
    )
    assert.deepEqual(mergeSpans([]), [])
  })
})
