// Which answer headers forwarded redaction masks: all but what frames the exchange.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Redactor } from '../../src/governance/redactor.js'
import { redactResponseHeaders, unredactedResponseHeader } from '../../src/edge/redact-headers.js'

const GITHUB = `ghp_${'a1B2'.repeat(9)}`

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
})
