/**
 * The key a tool is pinned under: its name, or where the built-in detectors find a secret in it
 * (or it already holds a mask), the masked name and 32 hex digits of its SHA-256.
 */
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { describe, it } from 'node:test'
import { pinKeyOf } from '../../src/governance/pin-key.js'

const KEY = `ghp_${'A1b2C3d4E5'.repeat(4)}`
const digest = (name: string) => createHash('sha256').update(name).digest('hex').slice(0, 32)

describe('pinKeyOf', () => {
  it('keeps a name without a secret as it is', () => {
    for (const name of ['read_file', 'search', 'a'.repeat(1024), 'ghp_short', 'Bearer', '#x'])
      assert.equal(pinKeyOf(name), name)
  })

  it('masks a secret in a name and adds the name’s digest', () => {
    const name = `use-${KEY}-now`
    assert.equal(pinKeyOf(name), `use-[REDACTED:github_token]-now#${digest(name)}`)
    const aws = 'AKIAABCDEFGHIJKLMNOP'
    assert.equal(pinKeyOf(aws), `[REDACTED:aws_access_key]#${digest(aws)}`)
  })

  it('masks a secret in a snake_case name (found by a review)', () => {
    const name = `use_${KEY}`
    assert.equal(pinKeyOf(name), `use_[REDACTED:github_token]#${digest(name)}`)
  })

  it('keeps two names masked alike apart', () => {
    const other = `use-${KEY.replace('A1', 'Z9')}-now`
    assert.notEqual(pinKeyOf(`use-${KEY}-now`), pinKeyOf(other))
  })

  it('hostile: a name spelled as another name’s key is keyed apart from it', () => {
    const secret = `use-${KEY}`
    const forged = pinKeyOf(secret)
    assert.notEqual(pinKeyOf(forged), forged)
    assert.equal(pinKeyOf(forged), `${forged}#${digest(forged)}`)
    assert.equal(
      pinKeyOf('x[REDACTED:pattern]'),
      `x[REDACTED:pattern]#${digest('x[REDACTED:pattern]')}`,
    )
  })
})
