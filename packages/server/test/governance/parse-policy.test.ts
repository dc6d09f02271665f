// Strict validation of policy documents: defaults, every field, and the refusals naming the field.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  isPolicyProblem,
  parsePolicy,
  type PolicyProblem,
} from '../../src/governance/parse-policy.js'
import { DEFAULT_POLICY, policyDocument, type Policy } from '../../src/governance/policy.js'

function ok(value: unknown): Policy {
  const p = parsePolicy(value)
  if (isPolicyProblem(p)) throw new Error(`${p.field}: ${p.message}`)
  return p
}

function bad(value: unknown): PolicyProblem {
  const p = parsePolicy(value)
  assert.ok(isPolicyProblem(p), 'expected a problem')
  return p
}

const EXAMPLE = {
  tools: { allow: ['*'], deny: ['*delete*', 'shell__*'] },
  rate_limits: [
    { tool: 'search', limit: 10, per_seconds: 60 },
    { method: '*', limit: 600, per_seconds: 60 },
  ],
  redaction: {
    keys: ['password', 'api_key'],
    patterns: ['sk-[A-Za-z0-9]{20,}'],
    detect_secrets: true,
    forwarded: false,
  },
  zero_knowledge: false,
  rug_pull: { mode: 'hold' },
}

describe('parsePolicy', () => {
  it('reads the documented example and writes it back the same', () => {
    const p = ok(EXAMPLE)
    assert.deepEqual(p.tools.deny, ['*delete*', 'shell__*'])
    assert.deepEqual(p.rateLimits[0], { on: 'tool', pattern: 'search', limit: 10, perSeconds: 60 })
    assert.equal(p.rugPull.mode, 'hold')
    assert.deepEqual(policyDocument(p), EXAMPLE)
  })

  it('reads rate limits counted per agent and writes them back', () => {
    const doc = { rate_limits: [{ tool: 'search', limit: 5, per_seconds: 60, per: 'agent' }] }
    const p = ok(doc)
    assert.equal(p.rateLimits[0]!.per, 'agent')
    assert.deepEqual(policyDocument(p).rate_limits, doc.rate_limits)
    const perTunnel = ok({ rate_limits: [{ tool: 's', limit: 1, per_seconds: 1, per: 'tunnel' }] })
    assert.deepEqual(policyDocument(perTunnel).rate_limits, [
      { tool: 's', limit: 1, per_seconds: 1 },
    ])
  })

  it('fills what is missing with the defaults', () => {
    assert.deepEqual(ok({}), DEFAULT_POLICY)
    assert.deepEqual(ok({ tools: { deny: ['x'] } }).tools.allow, ['*'])
    assert.equal(ok({ redaction: { keys: ['a'] } }).redaction.detectSecrets, true)
  })

  it('names the field at fault', () => {
    const cases: [unknown, string, RegExp][] = [
      [[], 'policy', /must be an object/],
      [{ colour: 'red' }, 'colour', /not a setting/],
      [{ tools: { allow: ['*'], block: [] } }, 'tools.block', /not a setting/],
      [{ tools: { deny: ['[abc'] } }, 'tools.deny[0]', /not a valid glob/],
      [{ tools: { deny: [''] } }, 'tools.deny[0]', /1 to 200 characters/],
      [{ tools: { deny: 'x' } }, 'tools.deny', /list of strings/],
      [
        { rate_limits: [{ tool: 's', limit: 0, per_seconds: 60 }] },
        'rate_limits[0].limit',
        /from 1/,
      ],
      [{ rate_limits: [{}, {}] }, 'rate_limits[0]', /exactly one of/],
      [
        {
          rate_limits: [
            { tool: 's', limit: 1, per_seconds: 60 },
            { method: 'm', limit: 5, per_seconds: -1 },
          ],
        },
        'rate_limits[1].per_seconds',
        /from 1 to 86400/,
      ],
      [
        { rate_limits: [{ tool: 's', method: 'm', limit: 1, per_seconds: 1 }] },
        'rate_limits[0]',
        /exactly one/,
      ],
      [
        { rate_limits: [{ tool: 's', limit: 1.5, per_seconds: 1 }] },
        'rate_limits[0].limit',
        /whole number/,
      ],
      [
        { redaction: { patterns: ['(unclosed'] } },
        'redaction.patterns[0]',
        /not a valid RE2 pattern/,
      ],
      [{ redaction: { patterns: ['(a)\\1'] } }, 'redaction.patterns[0]', /RE2/],
      [{ redaction: { patterns: ['(?P<x>a)'] } }, 'redaction.patterns[0]', /name its groups/],
      [{ redaction: { forwarded: 'yes' } }, 'redaction.forwarded', /true or false/],
      [{ zero_knowledge: 1 }, 'zero_knowledge', /true or false/],
      [{ rug_pull: { mode: 'panic' } }, 'rug_pull.mode', /off, alert, hold/],
      [
        { rate_limits: [{ tool: 's', limit: 1, per_seconds: 1, per: 'session' }] },
        'rate_limits[0].per',
        /"tunnel" or "agent"/,
      ],
    ]
    for (const [value, field, message] of cases) {
      const p = bad(value)
      assert.equal(p.field, field, JSON.stringify(value))
      assert.match(p.message, message, JSON.stringify(value))
    }
  })

  it('bounds the program the patterns join into, but not for stored documents', () => {
    // Each compiles alone; together they are more than the edge may run on every string.
    const big = unjoinable()
    const p = bad({ redaction: { patterns: big } })
    assert.equal(p.field, 'redaction.patterns')
    assert.match(p.message, /more than the 2000 allowed/)
    const two = bad({ redaction: { patterns: ['[a-z]{1000}x', '[0-9]{1000}y'] } })
    assert.match(two.message, /compile to 200\d RE2 instructions/)
    // Fifty realistic secret patterns fit.
    const realistic = Array.from({ length: 50 }, (_, i) => `tok${i}_[A-Za-z0-9]{24}`)
    assert.equal(isPolicyProblem(parsePolicy({ redaction: { patterns: realistic } })), false)
    // A document stored before the rule still loads, with its patterns.
    const stored = parsePolicy({ redaction: { patterns: big } }, { stored: true })
    assert.equal(isPolicyProblem(stored), false)
  })

  it('bounds the Unicode classes of all patterns, each slow to compile', () => {
    const many = Array(50).fill(`(?i)[${'\\pL'.repeat(164)}]`)
    const p = bad({ redaction: { patterns: many } })
    assert.equal(p.field, 'redaction.patterns[0]')
    assert.match(p.message, /at most 20 Unicode classes/)
    const fine = Array.from({ length: 20 }, (_, i) => `k${i}-\\pL+`)
    assert.equal(isPolicyProblem(parsePolicy({ redaction: { patterns: fine } })), false)
  })

  it('bounds list sizes', () => {
    assert.match(bad({ tools: { deny: Array(101).fill('x') } }).message, /at most 100/)
    const rules = Array.from({ length: 51 }, () => ({ method: '*', limit: 1, per_seconds: 1 }))
    assert.match(bad({ rate_limits: rules }).message, /at most 50/)
  })

  it('refuses globs another dialect reads differently (found by a hostile review)', () => {
    // Each was accepted and then denied nothing (taken as literal text), or the opposite of
    // what was meant ([!s]* is "not s" elsewhere, a class of ! and s here).
    for (const [glob, why] of [
      ['@(delete|drop)_*', /extended glob/],
      ['!(safe_*)', /extended glob/],
      ['[!s]*', /\[\^…\]/],
      ['[z-a]*', /not a valid glob/],
      ['!admin_*', /starts with !/],
      ['\\\\[!s]*', /\[\^…\]/],
    ] as const) {
      const read = parsePolicy({ tools: { deny: [glob] } })
      assert.ok(isPolicyProblem(read), glob)
      assert.equal(read.field, 'tools.deny[0]')
      assert.match(read.message, why)
      const limit = parsePolicy({ rate_limits: [{ tool: glob, limit: 1, per_seconds: 1 }] })
      assert.ok(isPolicyProblem(limit), `rate limit ${glob}`)
    }
    // A policy stored before the check is read as written.
    assert.ok(!isPolicyProblem(parsePolicy({ tools: { deny: ['[!s]*'] } }, { stored: true })))
    assert.ok(!isPolicyProblem(parsePolicy({ tools: { deny: ['[^s]*', '{delete,drop}_*'] } })))
  })
})

/** 50 patterns that each compile (60,000 instructions) but together pass RE2's largest program. */
function unjoinable(): string[] {
  const body = Array.from({ length: 60 }, (_, j) => `${String.fromCharCode(97 + (j % 26))}{1000}`)
  return Array.from({ length: 50 }, (_, i) => `q${i}${body.join('').slice(0, 480)}`)
}
