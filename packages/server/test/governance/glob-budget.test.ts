// Glob matching is paid from the tunnel's scan budget: an owner's policy of long globs and an
// agent's long names (a batch of a hundred, a listing of thousands) cannot hold the node's event
// loop for seconds a request; what the budget cannot pay for is not allowed, and counts for
// every rate limit.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { ClassifiedMessage } from '@burrow/protocol'
import { FREE_GLOB_STEPS, matchWithin } from '../../src/governance/glob-budget.js'
import { RateLimitRules } from '../../src/governance/rate-limit-demands.js'
import { ScanBudget } from '../../src/governance/scan-budget.js'
import { compileGlob, ToolRules } from '../../src/governance/tool-rules.js'
import { TunnelGovernance } from '../../src/governance/tunnel-governance.js'
import { DEFAULT_POLICY } from '../../src/governance/policy.js'

/** A budget of `ms` a minute on a clock that moves `step` ms at each reading. */
function budget(ms: number, step: number, maxSteps?: number): ScanBudget {
  let t = 0
  return new ScanBudget({
    msPerMinute: ms,
    now: () => 0,
    timer: () => (t += step),
    ...(maxSteps === undefined ? {} : { maxSteps }),
  })
}

const call = (name: string) =>
  ({
    kind: 'request',
    id: 1,
    method: 'tools/call',
    target: { kind: 'tool', name },
    value: {},
  }) as unknown as ClassifiedMessage

describe('glob budget', () => {
  it('matches while the budget pays, and refuses once it is spent', () => {
    const b = budget(2000, 500)
    const glob = [compileGlob('a*')]
    const name = `a${'x'.repeat(FREE_GLOB_STEPS)}`
    assert.equal(
      matchWithin(b, glob, name, (g, n) => g.matches(n)),
      true,
    )
    // Each match took 1000 ms on this clock (two readings after its start): the third finds the
    // minute spent.
    assert.equal(
      matchWithin(b, glob, name, (g, n) => g.matches(n)),
      true,
    )
    assert.equal(
      matchWithin(b, glob, name, (g, n) => g.matches(n)),
      null,
    )
    // An ordinary name still passes: its match is too small to be counted.
    assert.equal(
      matchWithin(b, glob, 'abc', (g, n) => g.matches(n)),
      true,
    )
  })

  it('refuses a match whose programs times the name pass the steps of one search', () => {
    const glob = [compileGlob('*a*a*a*a*a*a*b')]
    const size = glob[0]!.programSize()
    const fits = Math.ceil(FREE_GLOB_STEPS / size) + 10
    const b = budget(3000, 0, size * fits)
    assert.equal(
      matchWithin(b, glob, 'a'.repeat(fits), (g, n) => g.matches(n)),
      false,
    )
    assert.equal(
      matchWithin(b, glob, 'a'.repeat(fits + 1), (g, n) => g.matches(n)),
      null,
    )
  })

  it('does not allow a tool it could not check, and counts the call for every rate limit', () => {
    const spent = budget(1, 1000)
    spent.spent(10)
    const long = `safe_${'x'.repeat(1000)}`
    const rules = new ToolRules({ allow: ['*'], deny: ['secret_*'] }, spent)
    assert.equal(rules.allows(long), false)
    assert.equal(rules.allows('safe_tool'), true, 'an ordinary name costs too little to count')
    assert.equal(new ToolRules({ allow: ['*'], deny: [] }, spent).allows(long), true)
    const rates = new RateLimitRules(
      [{ on: 'tool', pattern: '{search,lookup,find}_*', limit: 5, perSeconds: 60 }],
      spent,
    )
    assert.equal(rates.demands('t', [call(`other_${'x'.repeat(1000)}`)]).length, 1)
    assert.equal(rates.demands('t', [call('other')]).length, 0)
    const fresh = new RateLimitRules(
      [{ on: 'tool', pattern: '{search,lookup,find}_*', limit: 5, perSeconds: 60 }],
      budget(3000, 0),
    )
    assert.equal(fresh.demands('t', [call(`other_${'x'.repeat(1000)}`)]).length, 0)
    assert.equal(fresh.demands('t', [call(`find_${'x'.repeat(1000)}`)]).length, 1)
  })

  it("applies the tunnel's budget to its governance: a call it cannot check is refused", () => {
    const spent = budget(1, 1000)
    spent.spent(10)
    const policy = { ...DEFAULT_POLICY, tools: { allow: ['*'], deny: ['secret_*'] } }
    const long = `safe_${'x'.repeat(1000)}`
    const gov = new TunnelGovernance('t', 1, policy, spent)
    assert.notEqual(gov.deniedCall([call(long)]), null)
    const paid = new TunnelGovernance('t', 1, policy, budget(3000, 0))
    assert.equal(paid.deniedCall([call(long)]), null)
    assert.notEqual(paid.deniedCall([call('secret_x')]), null)
  })

  it('stops matching a batch of long names under long globs once the budget is spent', () => {
    const glob = `${'*a'.repeat(99)}b`
    const b = budget(3000, 0)
    // Each match reads the clock twice, 1 ms apart: 100 names × 250 globs would be far past it.
    let t = 0
    const timed = new ScanBudget({ msPerMinute: 50, now: () => 0, timer: () => (t += 1) })
    const rules = new ToolRules({ allow: ['*'], deny: Array<string>(100).fill(glob) }, timed)
    const names = Array.from({ length: 100 }, (_, i) => `${'a'.repeat(1000)}${i}`)
    const allowed = names.filter((n) => rules.allows(n))
    assert.ok(allowed.length < 100, 'some were not paid for')
    assert.ok(t < 200, `the clock was read ${t} times: matching went on past the budget`)
    assert.equal(new ToolRules({ allow: ['*'], deny: [glob] }, b).allows('a'.repeat(1000)), true)
  })
})

describe('names matched before', () => {
  it('stay decided once the budget is spent, by other tunnels too (found by a review)', () => {
    // The node's share of the budget is spent by other tenants: an ordinary name whose match
    // costs more than the free steps was refused, and counted for every rate limit.
    let spent = false
    const shared = new ScanBudget({ msPerMinute: 1000, now: () => 0, timer: () => 0 })
    const start = shared.start.bind(shared)
    shared.start = () => {
      const scan = start()
      const fits = scan.fits.bind(scan)
      scan.fits = (steps: number) => !spent && fits(steps)
      return scan
    }
    const many = Array.from({ length: 40 }, (_, i) => `tool_${i}_*`)
    const rules = new ToolRules({ allow: many, deny: ['*_admin'] }, shared)
    const name = `tool_7_list_pull_request_review_comments_of_a_repository_${'x'.repeat(60)}`
    const pattern = `{tool_7_*,${Array.from({ length: 20 }, (_, i) => `alt${i}_*`).join(',')}}`
    const limits = new RateLimitRules(
      [{ on: 'tool', pattern, limit: 5, perSeconds: 60, per: 'tunnel' }],
      shared,
    )
    // Both matches cost more than the free steps: the budget pays for them.
    assert.ok(compileGlob(pattern).programSize() * name.length > FREE_GLOB_STEPS)
    assert.ok(
      many.map(compileGlob).reduce((n, g) => n + g.programSize(), 0) * name.length >
        FREE_GLOB_STEPS,
    )
    assert.equal(rules.allows(name), true)
    assert.equal(limits.demands('t', [call(name)], null).length, 1)
    const other = `other_tool_name_that_is_long_enough_to_cost_its_steps_${'x'.repeat(60)}`
    assert.equal(limits.demands('t', [call(other)], null).length, 0)
    spent = true
    assert.equal(rules.allows(name), true, 'decided before: still allowed')
    assert.equal(rules.allows(`tool_8_never_seen_before_${'x'.repeat(90)}`), false)
    assert.equal(limits.demands('t', [call(other)], null).length, 0, 'decided before: not counted')
    assert.equal(limits.demands('t', [call(name)], null).length, 1)
  })
})
