// The globs of a new policy are bounded together, not only one by one: checking and compiling
// 250 globs of 200 characters took one to two seconds of the node's event loop per write, and a
// tunnel may write its policy 30 times a minute, refused documents included (found by a hostile
// review). A stored policy is read as it was written.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { isPolicyProblem, parsePolicy, POLICY_LIMITS } from '../../src/governance/parse-policy.js'

const glob = (i: number, chars: number) => `t${i}_${'x'.repeat(chars - 3 - String(i).length)}*`

describe('the globs of a policy together', () => {
  it('accepts globs up to the total, across allow, deny and rate limits', () => {
    const n = POLICY_LIMITS.globTotalChars / 200 / 4
    const some = (from: number) => Array.from({ length: n }, (_, i) => glob(from + i, 200))
    const rule = (on: 'tool' | 'method') => (g: string) => ({ [on]: g, limit: 1, per_seconds: 1 })
    const p = parsePolicy({
      tools: { allow: some(0), deny: some(n) },
      rate_limits: [...some(2 * n).map(rule('tool')), ...some(3 * n).map(rule('method'))],
    })
    assert.ok(!isPolicyProblem(p), JSON.stringify(p))
  })

  it('refuses the glob that passes the total, naming it and the bound', () => {
    const allow = Array.from({ length: 100 }, (_, i) => glob(i, 200))
    const p = parsePolicy({ tools: { allow } })
    assert.ok(isPolicyProblem(p))
    const at = Math.floor(POLICY_LIMITS.globTotalChars / 200)
    assert.equal(p.field, `tools.allow[${at}]`)
    assert.match(p.message, new RegExp(`${POLICY_LIMITS.globTotalChars} characters`))
    const rates = Array.from({ length: 50 }, (_, i) => ({
      tool: glob(i, 200),
      limit: 1,
      per_seconds: 1,
    }))
    const both = parsePolicy({ tools: { deny: allow.slice(0, at) }, rate_limits: rates })
    assert.ok(isPolicyProblem(both))
    assert.equal(both.field, 'rate_limits[0].tool[0]')
  })

  it('reads a stored policy past the total as it was written', () => {
    const allow = Array.from({ length: 100 }, (_, i) => glob(i, 200))
    const p = parsePolicy({ tools: { allow } }, { stored: true })
    assert.ok(!isPolicyProblem(p))
    assert.equal(p.tools.allow.length, 100)
  })
})
