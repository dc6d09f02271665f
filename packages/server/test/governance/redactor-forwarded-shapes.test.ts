/**
 * With `redaction.forwarded`, the messages that reach the agent keep JSON-RPC's shapes: numbers
 * stay numbers, whatever the patterns match (an error code or a progress token turned into text
 * would break the agent's SDK).
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { DEFAULT_POLICY } from '../../src/governance/policy.js'
import { Redactor } from '../../src/governance/redactor.js'

describe('forwarded redaction keeps JSON-RPC shapes', () => {
  // A US ZIP code pattern, forwarded redaction on.
  const r = () =>
    new Redactor({ ...DEFAULT_POLICY.redaction, forwarded: true, patterns: ['\\b[0-9]{5}\\b'] })

  it('an error code stays an integer', () => {
    const { message } = r().redactMessage({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32602, message: 'Invalid params' },
    })
    assert.equal(typeof (message as { error: { code: unknown } }).error.code, 'number')
  })

  it('a numeric progressToken stays what the agent sent', () => {
    const { message } = r().redactMessage({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: 12345, progress: 1, total: 2 },
    })
    assert.equal((message as { params: { progressToken: unknown } }).params.progressToken, 12345)
  })
})
