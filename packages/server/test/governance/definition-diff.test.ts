import assert from 'node:assert/strict'
import { test } from 'node:test'
import { diffDefinitions } from '../../src/governance/definition-diff.js'

test('a path through a long key is cut at 1,000 characters, not inside a surrogate pair', () => {
  // A key of 250,000 characters shared by 200 changed fields made 50 M characters of paths.
  const key = 'ᚠ'.repeat(250_000)
  const before: Record<string, number> = {}
  const after: Record<string, number> = {}
  for (let i = 0; i < 200; i++) {
    before[`k${i}`] = 1
    after[`k${i}`] = 2
  }
  const changes = diffDefinitions(
    JSON.stringify({ [key]: before }),
    JSON.stringify({ [key]: after }),
  )
  assert.equal(changes.length, 200)
  for (const c of changes) {
    assert.equal(c.path, `${'ᚠ'.repeat(1000)}…`)
    assert.equal(c.before, '1')
    assert.equal(c.after, '2')
  }
  const astral = '𝔸'.repeat(600) // 1,200 UTF-16 units: unit 1,000 ends a pair, 999 starts one
  const [cut] = diffDefinitions(
    JSON.stringify({ ['x' + astral]: 1 }),
    JSON.stringify({ ['x' + astral]: 2 }),
  )
  assert.equal(cut?.path, `x${'𝔸'.repeat(499)}…`)
  assert.doesNotMatch(cut?.path ?? '', /[\uD800-\uDBFF](?![\uDC00-\uDFFF])/)
})

test('short paths are kept whole', () => {
  const changes = diffDefinitions(
    JSON.stringify({ inputSchema: { properties: { path: { type: 'string' } } } }),
    JSON.stringify({ inputSchema: { properties: { path: { type: 'number' } } } }),
  )
  assert.deepEqual(changes, [
    { path: 'inputSchema.properties.path.type', before: '"string"', after: '"number"' },
  ])
})
