// Redaction: keys at any depth, user patterns, the built-in detectors, masks naming what matched.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { DEFAULT_POLICY } from '../../src/governance/policy.js'
import { Redactor } from '../../src/governance/redactor.js'

const settings = {
  keys: ['password', 'API_KEY'],
  patterns: ['internal-[0-9]{4}'],
  detectSecrets: true,
  forwarded: false,
}

describe('Redactor', () => {
  it('masks configured keys at any depth, without case, and leaves the input unchanged', () => {
    const r = new Redactor(settings)
    const input = { user: 'ann', Password: 'hunter2', nested: [{ api_key: 42, ok: 'fine' }] }
    assert.deepEqual(r.redactValue(input), {
      user: 'ann',
      Password: '[REDACTED:password]',
      nested: [{ api_key: '[REDACTED:api_key]', ok: 'fine' }],
    })
    assert.equal(input.Password, 'hunter2')
  })

  it('shares the parts with nothing to mask, and copies only the paths to a mask', () => {
    const r = new Redactor(settings)
    const clean = { tools: [{ name: 'echo', args: { text: 'hello' } }], n: 1 }
    assert.equal(r.redactValue(clean), clean)
    const mixed = JSON.parse(
      '{"a":{"b":"ok"},"list":["x",{"password":"p"},"y"],"__proto__":{"password":"q"}}',
    ) as Record<string, unknown>
    const out = r.redactValue(mixed) as Record<string, unknown>
    assert.equal(out.a, mixed.a)
    assert.deepEqual(out.list, ['x', { password: '[REDACTED:password]' }, 'y'])
    assert.equal(Object.getPrototypeOf(out), Object.prototype)
    assert.equal(
      JSON.stringify(out),
      '{"a":{"b":"ok"},"list":["x",{"password":"[REDACTED:password]"},"y"],' +
        '"__proto__":{"password":"[REDACTED:password]"}}',
    )
    assert.deepEqual((mixed.list as unknown[])[1], { password: 'p' })
  })

  it('masks what the detectors recognise, naming each', () => {
    const r = new Redactor(settings)
    const text =
      'openai sk-abcdefghijklmnopqrstuvwxyz1234 gh ghp_' +
      'a'.repeat(36) +
      ' aws AKIAABCDEFGHIJKLMNOP auth Bearer abcdefghijklmnopqrstu ticket internal-1234 ' +
      '-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY----- done'
    assert.equal(
      r.redactText(text),
      'openai [REDACTED:api_key] gh [REDACTED:github_token] aws [REDACTED:aws_access_key] ' +
        'auth [REDACTED:bearer_token] ticket [REDACTED:pattern] [REDACTED:private_key] done',
    )
  })

  it('does nothing without keys, patterns or detectors', () => {
    const r = new Redactor({ ...settings, keys: [], patterns: [], detectSecrets: false })
    assert.equal(r.active, false)
    assert.equal(r.redactText('sk-abcdefghijklmnopqrstuvwxyz'), 'sk-abcdefghijklmnopqrstuvwxyz')
    assert.equal(new Redactor(DEFAULT_POLICY.redaction).active, true)
  })

  it('rewrites JSON text only when something was masked', () => {
    const r = new Redactor(settings)
    const clean = '{ "a" : 1 }'
    assert.equal(r.redactJsonText(clean), clean)
    assert.equal(r.redactJsonText('{"password":"x"}'), '{"password":"[REDACTED:password]"}')
    assert.equal(r.redactJsonText('not json internal-9999'), 'not json [REDACTED:pattern]')
  })

  it('masks values nested too deep to walk, and patterns cannot backtrack', () => {
    const r = new Redactor({ ...settings, patterns: ['(a+)+$'] })
    let deep: unknown = 'x'
    for (let i = 0; i < 100; i++) deep = [deep]
    assert.match(JSON.stringify(r.redactValue(deep)), /REDACTED:too_deep/)
    // Exponential for a backtracking engine; linear for RE2.
    assert.equal(r.redactText('a'.repeat(50_000) + '!'), 'a'.repeat(50_000) + '!')
  })
})

describe('secret detectors on hostile text', () => {
  it('stay linear on text built to make them backtrack', () => {
    const r = new Redactor({ keys: [], patterns: [], detectSecrets: true, forwarded: false })
    // Many openings and no ends, many near-tokens: each scan moves forward.
    const text = [
      '-----BEGIN RSA PRIVATE KEY-----x'.repeat(50_000),
      'Bearer '.repeat(50_000),
      'eyJaaaaaaa.'.repeat(50_000),
      'sk- '.repeat(100_000),
    ].join('\n')
    assert.equal(r.redactText(text), text)
    const key = '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----'
    assert.equal(
      r.redactText(`a ${key} b ${key} c`),
      'a [REDACTED:private_key] b [REDACTED:private_key] c',
    )
  })
})
