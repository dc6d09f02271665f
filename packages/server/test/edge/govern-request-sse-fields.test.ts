/**
 * With `redaction.forwarded`, an SSE event's `id:` and `event:` fields reach the agent redacted
 * like its data: a server's secret there passed as sent (found by a hostile review).
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { isBodyProblem, readJsonRpcBody, type JsonRpcBody } from '@burrow/protocol'
import { answerShaper } from '../../src/edge/govern-request.js'
import { ExchangeRecord } from '../../src/edge/exchange-record.js'
import { isPolicyProblem, parsePolicy } from '../../src/governance/parse-policy.js'
import { TunnelGovernance } from '../../src/governance/tunnel-governance.js'

const TOKEN = 'ghp_0123456789abcdefghijklmnopqrstuvwxyzAB'

function governance(document: unknown): TunnelGovernance {
  const policy = parsePolicy(document)
  assert.ok(!isPolicyProblem(policy), JSON.stringify(policy))
  return new TunnelGovernance('tun_fields', 1, policy)
}

function shaped(gov: TunnelGovernance, stream: string): string {
  const read = readJsonRpcBody(
    Buffer.from(
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x' } }),
    ),
  )
  assert.ok(!isBodyProblem(read))
  const body: JsonRpcBody = read
  const record = new ExchangeRecord({
    tunnel: { id: 'tun_fields', accountId: 'acc_1', plan: 'free' },
    method: 'POST',
    body,
    sessionId: undefined,
    history: { record: () => {} },
    sessions: null,
    arrivedAt: new Date(),
    started: performance.now(),
  })
  const messages = answerShaper(gov, body, record)?.('sse')
  assert.ok(messages)
  const bytes = Buffer.from(stream)
  const out: Uint8Array[] = []
  for (let i = 0; i < bytes.length; i += 7) out.push(...messages.push(bytes.subarray(i, i + 7)))
  out.push(...messages.end())
  return Buffer.concat(out).toString()
}

const answer = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { content: [] } })

describe('forwarded redaction of SSE fields', () => {
  it("masks a token in an event's id and name", () => {
    const stream = `id: ${TOKEN}\nevent: x-${TOKEN}\ndata: ${answer}\n\n`
    const out = shaped(governance({ redaction: { forwarded: true } }), stream)
    assert.ok(!out.includes(TOKEN), out)
    assert.match(out, /^id: \[REDACTED:github_token\]$/m)
    assert.match(out, /^event: x-\[REDACTED:github_token\]$/m)
    assert.ok(out.includes(`data: ${answer}\n`), out)
  })

  it('masks what an owner pattern matches in an id, and keeps an id with nothing to mask', () => {
    const gov = governance({ redaction: { patterns: ['cust-[0-9]{6}'], forwarded: true } })
    assert.match(shaped(gov, `id: cust-123456\ndata: ${answer}\n\n`), /^id: \[REDACTED:pattern\]$/m)
    assert.match(shaped(gov, `id: 17\ndata: ${answer}\n\n`), /^id: 17$/m)
  })

  it('leaves the fields as sent without forwarded redaction', () => {
    const gov = governance({ tools: { deny: ['shell_*'] } })
    const out = shaped(gov, `id: ${TOKEN}\ndata: ${answer}\n\n`)
    assert.match(out, new RegExp(`^id: ${TOKEN}$`, 'm'))
  })
})
