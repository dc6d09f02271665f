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

  it('gives the head back as it came without a redactor', () => {
    const fields = [['x-leak', GITHUB] as const]
    assert.equal(redactResponseHeaders(null, fields), fields)
  })
})
