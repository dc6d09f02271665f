/**
 * The built-in secret detectors find a secret after an underscore too: `\b` never fired between
 * `_` and a letter, so `use_ghp_…`, the usual way of naming a tool, and `TOKEN_AKIA…` kept their
 * secrets in history and in pins (found by a review). A secret inside a longer word of letters
 * or digits is still not one.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { detectSecrets } from '../../src/governance/secret-detectors.js'

const GITHUB = `ghp_${'A1b2C3d4E5'.repeat(4)}`
const AWS = 'AKIAABCDEFGHIJKLMNOP'

describe('detectSecrets', () => {
  it('finds a secret after an underscore', () => {
    for (const [text, kind] of [
      [`use_${GITHUB}`, 'github_token'],
      [`TOKEN_${AWS}`, 'aws_access_key'],
      [`key_sk_live_${'a'.repeat(20)}`, 'stripe_key'],
      [`x_sk-${'a'.repeat(24)}`, 'api_key'],
      [`tunnel_mtk_${'a'.repeat(20)}`, 'burrow_key'],
    ] as const) {
      const found = detectSecrets(text)
      assert.deepEqual(
        found.map((f) => f[2]),
        [kind],
        text,
      )
      assert.equal(
        text.slice(found[0]![0]),
        text.slice(text.length - (found[0]![1] - found[0]![0])),
      )
    }
  })

  it('finds none inside a longer word of letters and digits', () => {
    assert.deepEqual(detectSecrets(`x${GITHUB}`), [])
    assert.deepEqual(detectSecrets(`9${AWS}`), [])
  })
})
