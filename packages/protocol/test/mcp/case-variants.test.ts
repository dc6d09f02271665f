// caseVariantOf looks up nothing when every name folds to itself: the same verdicts as reading
// every name, for names drawn from characters that fold (capitals, ſ, K, é) and ones that do not.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { caseVariantOf, foldMemberName } from '../../src/mcp/case-variants.js'

const ENVELOPE = new Set(['jsonrpc', 'id', 'method', 'params', 'result', 'error'])

/** The rule read plainly: every object's names folded and compared. */
function plainVerdict(message: Record<string, unknown>): string | null {
  const objects: [Record<string, unknown>, boolean][] = [[message, true]]
  for (const value of Object.values(message)) {
    if (typeof value === 'object' && value !== null && !Array.isArray(value))
      objects.push([value as Record<string, unknown>, false])
  }
  for (const [object, envelope] of objects) {
    const seen = new Set<string>()
    for (const key of Object.keys(object)) {
      const folded = foldMemberName(key)
      if (envelope && folded !== key && ENVELOPE.has(folded)) return folded
      if (seen.has(folded)) return folded
      seen.add(folded)
    }
  }
  return null
}

const name = fc
  .array(
    fc.constantFrom('a', 'd', 'i', 'k', 'm', 's', 'A', 'I', 'K', 'M', 'S', 'ſ', 'K', 'é', 'É', '_'),
    {
      minLength: 1,
      maxLength: 4,
    },
  )
  .map((chars) => chars.join(''))
const memberName = fc.oneof(name, fc.constantFrom(...ENVELOPE, 'Method', 'ID', 'paramſ'))
const inner = fc.dictionary(memberName, fc.integer(), { maxKeys: 5 })
const message = fc.dictionary(memberName, fc.oneof(fc.integer(), inner), { maxKeys: 6 })

describe('caseVariantOf', () => {
  it('finds what reading every name finds (property)', () => {
    fc.assert(
      fc.property(message, (m) => {
        assert.equal(caseVariantOf(m)?.name ?? null, plainVerdict(m))
      }),
      { seed: 20261201, numRuns: 3000 },
    )
  })

  it('passes folded names and finds the Kelvin sign and the long s', () => {
    assert.equal(caseVariantOf({ jsonrpc: '2.0', id: 1, method: 'x', params: { name: 'a' } }), null)
    assert.equal(caseVariantOf({ method: 'x', params: { key: 1, '\u212aey': 2 } })?.name, 'key')
    assert.equal(caseVariantOf({ method: 'x', paramſ: {} })?.name, 'params')
    assert.equal(caseVariantOf({ method: 'x', params: { café: 1, cafÉ: 2 } })?.name, 'café')
  })
})
