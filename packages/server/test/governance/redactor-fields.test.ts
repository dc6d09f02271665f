// Redaction of header fields (`Redactor.redactFields`): values as strings of an answer, configured
// keys as header names, repeated fields scanned joined, exempt names untouched, one scan; a field
// whose name holds a secret left out.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Redactor } from '../../src/governance/redactor.js'
import { ScanBudget } from '../../src/governance/scan-budget.js'

const plain = { keys: [], patterns: [], detectSecrets: true, forwarded: true }
const GITHUB = `ghp_${'a1B2'.repeat(9)}`
const none = () => false

describe('Redactor.redactFields', () => {
  it('masks secrets in values as in bodies, and gives the fields back when nothing is masked', () => {
    const r = new Redactor({ ...plain, patterns: ['internal-[0-9]{4}'] })
    const clean = [['x-a', 'nothing here']] as const
    assert.equal(r.redactFields(clean, none), clean)
    const fields = [
      ['X-Token', `use ${GITHUB} now`],
      ['x-id', 'internal-1234'],
      ['x-a', 'fine'],
    ] as const
    assert.deepEqual(r.redactFields(fields, none), [
      ['X-Token', 'use [REDACTED:github_token] now'],
      ['x-id', '[REDACTED:pattern]'],
      ['x-a', 'fine'],
    ])
    assert.equal(fields[0][1], `use ${GITHUB} now`, 'the input is not changed')
  })

  it('leaves exempt fields as they came, whatever their case', () => {
    const r = new Redactor(plain)
    const fields = [
      ['Mcp-Session-Id', GITHUB],
      ['x-b', GITHUB],
    ] as const
    assert.deepEqual(
      r.redactFields(fields, (name) => name === 'mcp-session-id'),
      [
        ['Mcp-Session-Id', GITHUB],
        ['x-b', '[REDACTED:github_token]'],
      ],
    )
  })

  it('masks a field whole when its name is a configured key, without case', () => {
    const r = new Redactor({ ...plain, keys: ['X-Api-Key'] })
    assert.deepEqual(r.redactFields([['x-API-key', 'opaque']], none), [
      ['x-API-key', '[REDACTED:x-api-key]'],
    ])
  })

  it('masks a secret split across repeated fields of one name in each part, not across names', () => {
    const r = new Redactor(plain)
    const fields = [
      ['x-s', GITHUB.slice(0, 10)],
      ['x-t', GITHUB.slice(10)],
      ['x-s', GITHUB.slice(10, 25)],
      ['X-S', GITHUB.slice(25)],
    ] as const
    assert.deepEqual(r.redactFields(fields, none), [
      ['x-s', '[REDACTED:github_token]'],
      ['x-t', GITHUB.slice(10)],
      ['x-s', '[REDACTED:github_token]'],
      ['X-S', '[REDACTED:github_token]'],
    ])
  })

  it('finds what a pattern matches across repeated fields as a reader combines them', () => {
    const r = new Redactor({ ...plain, detectSecrets: false, patterns: ['tok=[a-z]+, [a-z]+'] })
    assert.deepEqual(
      r.redactFields(
        [
          ['x-c', 'keep tok=abc'],
          ['x-c', 'def keep'],
        ],
        none,
      ),
      [
        ['x-c', 'keep [REDACTED:pattern]'],
        ['x-c', '[REDACTED:pattern] keep'],
      ],
    )
  })

  it('still masks a secret at the start of a repeated field that a joined scan reads mid-word', () => {
    // Joined with nothing between, "xyzAKIA…" has no word boundary before the key.
    const r = new Redactor(plain)
    assert.deepEqual(
      r.redactFields(
        [
          ['x-d', 'xyz'],
          ['x-d', 'AKIAQWERTYUIOPASDFGH'],
        ],
        none,
      ),
      [
        ['x-d', 'xyz'],
        ['x-d', '[REDACTED:aws_access_key]'],
      ],
    )
  })

  it('masks whole what the patterns cannot scan, never forwarding it unscanned', () => {
    let now = 0
    const budget = new ScanBudget({ msPerMinute: 100, now: () => now })
    const r = new Redactor({ ...plain, patterns: ['k-[0-9]+'] }, budget)
    budget.spent(150)
    const fields = [
      ['x-a', 'k-1'],
      ['x-a', 'other'],
      ['mcp-session-id', 'k-2'],
    ] as const
    // Names are scanned too: a name the patterns could not read is left out (null), its value
    // with it; with names forwarded unscanned, the values are masked whole.
    assert.deepEqual(
      r.redactFields(fields, (n) => n === 'mcp-session-id'),
      [null, null, ['mcp-session-id', 'k-2']],
    )
    assert.deepEqual(
      r.redactFields(
        fields,
        (n) => n === 'mcp-session-id',
        () => true,
      ),
      [
        ['x-a', '[REDACTED:unscanned]'],
        ['x-a', '[REDACTED:unscanned]'],
        ['mcp-session-id', 'k-2'],
      ],
    )
    now = 60_000
    assert.deepEqual(r.redactFields([['x-a', 'k-3 ok']], none), [['x-a', '[REDACTED:pattern] ok']])
  })

  it('masks every one of many repeated fields, each once', () => {
    const r = new Redactor(plain)
    const fields = Array.from({ length: 255 }, () => ['x-many', 'AKIAQWERTYUIOPASDFGH'] as const)
    const out = r.redactFields(fields, none)
    assert.equal(out.length, 255)
    for (const field of out) assert.equal(field?.[1], '[REDACTED:aws_access_key]')
  })

  it('leaves out a field whose name holds a secret: null in its place, counted as a mask', () => {
    const r = new Redactor(plain)
    const before = r.masked
    const fields = [
      ['x-a', 'fine'],
      ['x-b', 'fine'],
      [`X-${GITHUB}`, 'v'],
      [`x-${GITHUB.toLowerCase()}`, GITHUB],
    ] as const
    assert.deepEqual(r.redactFields(fields, none), [fields[0], fields[1], null, null])
    assert.equal(r.masked - before, 2)
    // A name forwarded unscanned keeps its field.
    assert.deepEqual(
      r.redactFields(fields, none, (name) => name.startsWith('x-ghp_')),
      [fields[0], fields[1], fields[2], [fields[3][0], '[REDACTED:github_token]']],
    )
  })
})
