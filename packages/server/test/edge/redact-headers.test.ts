// Which answer headers forwarded redaction masks: all but what frames the exchange; and which
// it leaves out because their names hold a secret.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Redactor } from '../../src/governance/redactor.js'
import { ScanBudget } from '../../src/governance/scan-budget.js'
import {
  redactResponseHeaders,
  unredactedResponseHeader,
  unscannedResponseName,
} from '../../src/edge/redact-headers.js'

const GITHUB = `ghp_${'a1B2'.repeat(9)}`
const AWS = 'AKIAQWERTYUIOPASDFGH'
const detecting = () =>
  new Redactor({ keys: [], patterns: [], detectSecrets: true, forwarded: true })
/** The names of `fields`, lower-case as the agent reads them. */
const names = (fields: readonly (readonly [string, string])[]) =>
  fields.map(([name]) => name.toLowerCase())

describe('redactResponseHeaders', () => {
  it('masks custom fields and leaves framing, session, cookie, challenge, CORS and hop-by-hop fields', () => {
    const r = new Redactor({ keys: [], patterns: [], detectSecrets: true, forwarded: true })
    const kept = [
      'Content-Type',
      'content-length',
      'content-encoding',
      'mcp-session-id',
      'MCP-Protocol-Version',
      'set-cookie',
      'www-authenticate',
      'access-control-allow-origin',
      'connection',
      'transfer-encoding',
    ]
    const fields = [...kept.map((n) => [n, GITHUB] as const), ['x-leak', GITHUB] as const]
    const out = redactResponseHeaders(r, fields)
    for (let i = 0; i < kept.length; i++) assert.deepEqual(out[i], fields[i], kept[i])
    assert.deepEqual(out.at(-1), ['x-leak', '[REDACTED:github_token]'])
    assert.equal(unredactedResponseHeader('location'), false)
  })

  it("reads values as the UTF-8 text their bytes are, as the owner's patterns read bodies", () => {
    // burrow up hands values on as their bytes, one character each (what Node's HTTP client reads,
    // latin1): a pattern with a character past ASCII matched a body, never a header value.
    const r = new Redactor({
      keys: [],
      patterns: ['geheim-ü[0-9]+'],
      detectSecrets: true,
      forwarded: true,
    })
    const bytes = (text: string) => Buffer.from(text, 'utf8').toString('latin1')
    const fields = [
      ['x-a', bytes('vor geheim-ü1234 nach, été')],
      // Not UTF-8 (a lone byte): scanned as it came, a detector's secret still masked.
      ['x-b', `\u00e9 ${GITHUB}`],
      ['x-c', bytes('été 😀')],
    ] as const
    const out = redactResponseHeaders(r, fields)
    assert.deepEqual(out, [
      ['x-a', bytes('vor [REDACTED:pattern] nach, été')],
      ['x-b', '\u00e9 [REDACTED:github_token]'],
      fields[2],
    ])
    // Nothing to mask: the head as it came.
    const clean = [fields[2]]
    assert.equal(redactResponseHeaders(r, clean), clean)
  })

  it('gives the head back as it came without a redactor', () => {
    const fields = [['x-leak', GITHUB] as const]
    assert.equal(redactResponseHeaders(null, fields), fields)
  })

  it('leaves out a field whose name holds a secret, counted as a mask (found by a review)', () => {
    // A name cannot hold a mask: `x-ghp_…: 1` reached the agent as sent.
    const r = detecting()
    const fields = [
      ['content-type', 'application/json'],
      ['x-plain', 'fine'],
      [`x-${GITHUB}`, '1'],
      [`X-${AWS}`, 'yes'],
    ] as const
    const before = r.masked
    const out = redactResponseHeaders(r, fields)
    assert.deepEqual(out, [fields[0], fields[1]])
    assert.equal(r.masked - before, 2, 'each field left out counts as one mask')
  })

  it("leaves out a name the owner's patterns match, and one whose secret the lower case hides", () => {
    // burrow up and the edge write names lower-case: an upper-case secret (AKIA…) still reads
    // back by upper-casing it, and the patterns may be written for either case.
    const r = new Redactor({
      keys: [],
      patterns: ['INTERNAL-[0-9]{4}', 'tok-[a-z]{6}'],
      detectSecrets: true,
      forwarded: true,
    })
    const fields = [
      [`x-${AWS.toLowerCase()}`, '1'],
      ['x-internal-1234', '1'],
      ['X-TOK-ABCDEF', '1'],
      ['x-internal-12', 'short: no match'],
    ] as const
    assert.deepEqual(redactResponseHeaders(r, fields), [fields[3]])
  })

  it('leaves out every field of a secret name, repeated in any case', () => {
    const r = detecting()
    const secret = `x-${GITHUB}`
    const fields = [
      ['x-a', 'b'],
      ['X-Gh', GITHUB],
      [secret, '1'],
      [secret.toUpperCase(), '2'],
      [secret.toLowerCase(), '3'],
    ] as const
    const before = r.masked
    const out = redactResponseHeaders(r, fields)
    assert.deepEqual(out, [fields[0], ['X-Gh', '[REDACTED:github_token]']])
    assert.equal(r.masked - before, 4)
  })

  it('leaves out names that hold a secret only when read joined, across exempt fields', () => {
    const r = detecting()
    const fields = [
      ['x-first', 'ok'],
      ['x-second', 'ok'],
      [`x-${GITHUB.slice(0, 15)}`, '1'],
      ['content-type', 'application/json'],
      [GITHUB.slice(15), '2'],
    ] as const
    const out = redactResponseHeaders(r, fields)
    assert.deepEqual(names(out), ['x-first', 'x-second', 'content-type'])
    for (const name of names(out)) assert.ok(!name.includes('a1b2'), name)
  })

  it('scans the names of framing fields by name, never leaving them out', () => {
    // A pattern that matches them is the owner's mistake: the exchange still works.
    const r = new Redactor({
      keys: [],
      patterns: ['content-type', 'session', 'allow-origin'],
      detectSecrets: true,
      forwarded: true,
    })
    const fields = [
      ['Content-Type', 'application/json'],
      ['mcp-session-id', GITHUB],
      ['access-control-allow-origin', '*'],
      [`access-control-${GITHUB}`, '1'],
      ['transfer-encoding', 'chunked'],
    ] as const
    assert.deepEqual(redactResponseHeaders(r, fields), fields.slice(0, 3).concat([fields[4]]))
    assert.equal(unscannedResponseName('access-control-expose-headers'), true)
    assert.equal(unscannedResponseName('access-control-x'), false)
    assert.equal(unscannedResponseName('x-debug'), false)
  })

  it('leaves out secret names among the most fields a head carries, and in huge names', () => {
    const r = detecting()
    const many = Array.from(
      { length: 256 },
      (_, i) => [i % 2 === 0 ? `x-${i}-${AWS}` : `x-${i}`, 'v'] as const,
    )
    const out = redactResponseHeaders(r, many)
    assert.deepEqual(
      names(out),
      many.filter((_, i) => i % 2 === 1).map(([name]) => name),
    )
    const huge = `x-${'a'.repeat(8_000)}-${GITHUB}-${'b'.repeat(8_000)}`
    const clean = `x-${'c'.repeat(16_000)}`
    assert.deepEqual(
      redactResponseHeaders(r, [
        [huge, '1'],
        [clean, '2'],
      ]),
      [[clean, '2']],
    )
  })

  it('leaves out names the patterns cannot scan, keeping framing fields', () => {
    let now = 0
    const budget = new ScanBudget({ msPerMinute: 100, now: () => now })
    const r = new Redactor(
      { keys: [], patterns: ['k-[0-9]+'], detectSecrets: true, forwarded: true },
      budget,
    )
    budget.spent(150)
    const fields = [
      ['x-a', 'plain'],
      ['content-type', 'application/json'],
    ] as const
    assert.deepEqual(redactResponseHeaders(r, fields), [fields[1]])
    now = 60_000
    assert.deepEqual(
      redactResponseHeaders(r, [
        ['x-k-1', '1'],
        ['x-a', 'k-2'],
      ]),
      [['x-a', '[REDACTED:pattern]']],
    )
  })

  it('keeps UTF-8 values as their bytes next to a field left out', () => {
    const r = new Redactor({
      keys: [],
      patterns: ['geheim-ü[0-9]+'],
      detectSecrets: true,
      forwarded: true,
    })
    const bytes = (text: string) => Buffer.from(text, 'utf8').toString('latin1')
    const fields = [
      ['x-a', bytes('vor geheim-ü12 nach')],
      ['x-b', bytes('été')],
      [`x-${GITHUB}`, bytes('été')],
    ] as const
    assert.deepEqual(redactResponseHeaders(r, fields), [
      ['x-a', bytes('vor [REDACTED:pattern] nach')],
      fields[1],
    ])
  })

  it('may leave out the field after a secret name too, when the match runs on into its name', () => {
    // Names are also read joined: a token's characters run on across the names' seam, as a
    // reader joining them would read them. Only next to a name that holds a secret.
    const r = detecting()
    const out = redactResponseHeaders(r, [
      [`x-${GITHUB}`, '1'],
      ['x-next', '2'],
      ['-x-after-a-hyphen', '3'],
    ])
    assert.deepEqual(names(out), ['-x-after-a-hyphen'])
  })
})
