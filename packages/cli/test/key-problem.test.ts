import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { tunnelKeyProblem } from '../src/key-problem.js'

describe('tunnelKeyProblem', () => {
  it('a tunnel key has none; the broker checks the rest', () => {
    assert.equal(tunnelKeyProblem('mtk_anything'), null)
  })

  it('names the other kinds of Burrow secret, and quotes', () => {
    assert.match(tunnelKeyProblem('btk_x') ?? '', /^that is an API token \(btk_…\)/)
    assert.match(tunnelKeyProblem('atk_x') ?? '', /^that is an agent token \(atk_…\)/)
    assert.match(tunnelKeyProblem('"mtk_x"') ?? '', /quotes around it/)
    assert.match(tunnelKeyProblem('') ?? '', /must start with "mtk_"/)
  })

  it('hostile: never repeats the value, however long', () => {
    for (const key of ['btk_', 'atk_', "'mtk_", 'zzz_']) {
      const said = tunnelKeyProblem(`${key}${'s'.repeat(100_000)}`) ?? ''
      assert.ok(said.length < 300 && !said.includes('sss'), said.slice(0, 80))
    }
  })
})
