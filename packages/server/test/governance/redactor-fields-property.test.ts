/**
 * Property test of header redaction (`Redactor.redactFields`): a secret any detector knows, split
 * anywhere across repeated fields of one name written in any case, with other fields (exempt ones
 * too) between the parts and text before and after it, is gone from what the agent reads, whether
 * it reads the fields one by one, joined as readers combine them (`, `) or with nothing between;
 * names and order never change, and exempt fields are never touched. Fixed seed.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { Redactor } from '../../src/governance/redactor.js'
import { detectSecrets } from '../../src/governance/secret-detectors.js'

const SECRETS = [
  `ghp_${'a1B2'.repeat(9)}`,
  'AKIAABCDEFGHIJKLMNOP',
  `sk-${'x'.repeat(24)}`,
  `Bearer ${'t'.repeat(20)}`,
  'xoxb-1234567890ab',
  `AIza${'Q'.repeat(35)}`,
]

describe('Redactor.redactFields (property)', () => {
  it('masks a secret split anywhere across repeated fields in every reading of them', () => {
    const redactor = new Redactor({
      keys: [],
      patterns: ['internal-[0-9]{4}'],
      detectSecrets: true,
      forwarded: true,
    })
    const exempt = (name: string) => name === 'content-type'
    fc.assert(
      fc.property(
        fc.constantFrom(...SECRETS),
        fc.array(fc.nat(), { maxLength: 4 }),
        fc.constantFrom('', ' ', 'x', '; ', 'é', '😀'),
        fc.constantFrom('', ' ', 'y', ','),
        fc.array(fc.constantFrom('X-T', 'x-t', 'x-T'), { minLength: 5, maxLength: 5 }),
        fc.array(fc.tuple(fc.nat(8), fc.constantFrom('x-o', 'content-type')), { maxLength: 3 }),
        (secret, cuts, before, after, names, others) => {
          const at = [...new Set(cuts.map((c) => c % (secret.length + 1)))].sort((a, b) => a - b)
          const parts = [0, ...at].map((start, i) => secret.slice(start, at[i] ?? secret.length))
          parts[0] = before + parts[0]!
          parts[parts.length - 1] += after
          const fields: [string, string][] = parts.map((p, i) => [names[i]!, p])
          for (const [where, name] of others) {
            fields.splice(where % (fields.length + 1), 0, [name, SECRETS[0]!])
          }
          const out = redactor.redactFields(fields, exempt).map((field) => {
            assert.ok(field !== null, 'no name here holds a secret')
            return field
          })
          assert.deepEqual(
            out.map(([name]) => name),
            fields.map(([name]) => name),
          )
          out.forEach(([name, value], i) => {
            if (exempt(name)) assert.equal(value, fields[i]![1])
          })
          const values = out.filter(([name]) => name.toLowerCase() !== 'content-type')
          const split = values.filter(([name]) => name.toLowerCase() === 'x-t').map(([, v]) => v)
          for (const reading of [...values.map(([, v]) => v), split.join(''), split.join(', ')]) {
            assert.deepEqual(detectSecrets(reading), [], `${JSON.stringify(fields)}: ${reading}`)
          }
        },
      ),
      { numRuns: 3000, seed: 20261130 },
    )
  })
})
