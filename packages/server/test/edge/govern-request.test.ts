/**
 * The policy as the edge applies it to one request, with real compiled policies, in-process rate
 * limits on an injected clock and rug-pull pins over SQLite: denied calls (`tool_denied`), held
 * calls (`tool_held`) and calls over a limit (`rate_limited`, all of a batch's tokens or none,
 * none taken for a request the policy refuses), each answered over a real socket the way the edge
 * answers it: the refusal envelope carrying the refused id, one per request of a batch. And the
 * shaping of answers: hidden tools removed from `tools/list` answers (JSON and SSE) for the
 * requests that asked, secrets masked when redaction is `forwarded`, anything else untouched.
 */
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, afterEach, before, beforeEach, describe, it } from 'node:test'
import {
  isBodyProblem,
  readJsonRpcBody,
  refusalIds,
  silentLogger,
  type JsonRpcBody,
  type ResponseKind,
} from '@burrow/protocol'
import { LocalClusterEvents } from '../../src/cluster/cluster-events.js'
import {
  answerShaper,
  governRequest,
  touchesTools,
  UNCHECKED_ANSWER,
  UNSCANNED_ANSWER,
  type RugPull,
} from '../../src/edge/govern-request.js'
import { ExchangeRecord } from '../../src/edge/exchange-record.js'
import { MemoryCallRateLimits } from '../../src/governance/call-rate-limits.js'
import { isPolicyProblem, parsePolicy } from '../../src/governance/parse-policy.js'
import { ScanBudget } from '../../src/governance/scan-budget.js'
import { ToolPins } from '../../src/governance/tool-pins.js'
import { TunnelGovernance } from '../../src/governance/tunnel-governance.js'
import { sendRefusal } from '../../src/http/send-refusal.js'
import type { CallRecord } from '../../src/quota/call-history.js'
import { openStore } from '../../src/store/open-store.js'
import type { Store } from '../../src/store/store.js'
import { assertRefusal, type RefusalEnvelope } from '../helpers/assert-refusal.js'
import { testBackends, type TestDatabase } from '../helpers/test-databases.js'

const TUNNEL = 'tun_governed'

function governance(document: unknown, tunnelId = TUNNEL): TunnelGovernance {
  const policy = parsePolicy(document)
  assert.ok(!isPolicyProblem(policy), JSON.stringify(policy))
  return new TunnelGovernance(tunnelId, 1, policy)
}

/**
 * A forwarded-redaction policy for a tunnel that has used its minute of scanning: no string can
 * be scanned, keys included.
 */
function outOfScanTime(): TunnelGovernance {
  const policy = parsePolicy({ redaction: { patterns: ['k-[0-9]+'], forwarded: true } })
  assert.ok(!isPolicyProblem(policy))
  const budget = new ScanBudget({ now: () => 0 })
  budget.spent(10_000)
  return new TunnelGovernance(TUNNEL, 1, policy, budget)
}

function rpc(message: unknown): JsonRpcBody {
  const read = readJsonRpcBody(Buffer.from(JSON.stringify(message)))
  assert.ok(!isBodyProblem(read), JSON.stringify(read))
  return read
}

const call = (id: string | number, name: string, args: object = {}) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
})
const list = (id: string | number, cursor?: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/list',
  ...(cursor === undefined ? {} : { params: { cursor } }),
})
const tool = (name: string, description = `does ${name}`) => ({
  name,
  description,
  inputSchema: { type: 'object' },
})
const listed = (id: string | number, tools: unknown[], extra: object = {}) => ({
  jsonrpc: '2.0',
  id,
  result: { tools, ...extra },
})

describe('governRequest', () => {
  let clock: number
  let limits: MemoryCallRateLimits

  beforeEach(() => {
    clock = Date.parse('2026-07-01T00:00:00.000Z')
    limits = new MemoryCallRateLimits(() => clock)
  })

  it('lets everything through under the default policy, and a body that is not JSON-RPC', async () => {
    const open = governance({})
    assert.equal(await governRequest(open, limits, rpc(call(1, 'anything'))), null)
    assert.equal(await governRequest(governance({ tools: { deny: ['*'] } }), limits, null), null)
  })

  it('refuses a call to a denied tool, naming it, and not a call to another', async () => {
    const gov = governance({ tools: { allow: ['*'], deny: ['shell_*'] } })
    const refused = await governRequest(gov, limits, rpc(call(1, 'shell_exec')))
    assert.equal(refused?.code, 'tool_denied')
    assert.match(refused?.reason ?? '', /the tool "shell_exec" is not allowed on this tunnel/)
    assert.equal(await governRequest(gov, limits, rpc(call(2, 'search'))), null)
    assert.equal(await governRequest(gov, limits, rpc(list(3))), null, 'listing is not calling')
  })

  it('refuses a batch holding one denied call, naming the first', async () => {
    const gov = governance({ tools: { allow: ['search', 'fetch'] } })
    const batch = rpc([call(1, 'search'), call(2, 'rm'), call(3, 'drop')])
    const refused = await governRequest(gov, limits, batch)
    assert.equal(refused?.code, 'tool_denied')
    assert.match(refused?.reason ?? '', /"rm"/)
  })

  it('refuses calls over a rate limit with Retry-After, then lets them through as tokens return', async () => {
    const gov = governance({ rate_limits: [{ tool: 'search', limit: 2, per_seconds: 60 }] })
    assert.equal(await governRequest(gov, limits, rpc(call(1, 'search'))), null)
    assert.equal(await governRequest(gov, limits, rpc(call(2, 'search'))), null)
    const refused = await governRequest(gov, limits, rpc(call(3, 'search')))
    assert.equal(refused?.code, 'rate_limited')
    assert.deepEqual(refused?.headers, { 'retry-after': '30' })
    assert.equal(refused?.reason, '2 calls per 60 s to search; retry in 30 s')
    assert.equal(await governRequest(gov, limits, rpc(call(4, 'fetch'))), null, 'other tools')
    clock += 29_999
    assert.equal((await governRequest(gov, limits, rpc(call(5, 'search'))))?.code, 'rate_limited')
    clock += 1
    assert.equal(await governRequest(gov, limits, rpc(call(6, 'search'))), null)
  })

  it('takes a batch’s tokens all together or not at all', async () => {
    const gov = governance({ rate_limits: [{ tool: 'search', limit: 3, per_seconds: 60 }] })
    const three = rpc([call(1, 'search'), call(2, 'search'), call(3, 'search'), call(4, 'search')])
    assert.equal((await governRequest(gov, limits, three))?.code, 'rate_limited')
    // Nothing was taken by the refused batch: three single calls still fit.
    for (let id = 5; id < 8; id++) {
      assert.equal(await governRequest(gov, limits, rpc(call(id, 'search'))), null)
    }
    assert.equal((await governRequest(gov, limits, rpc(call(8, 'search'))))?.code, 'rate_limited')
  })

  it('counts nothing for a request the policy refuses, and nothing without limits', async () => {
    const gov = governance({
      tools: { deny: ['shell_*'] },
      rate_limits: [{ method: '*', limit: 1, per_seconds: 3600 }],
    })
    for (let i = 0; i < 5; i++) {
      const refused = await governRequest(
        gov,
        limits,
        rpc([call(i, 'search'), call(`x${i}`, 'shell_rm')]),
      )
      assert.equal(refused?.code, 'tool_denied')
    }
    assert.equal(
      await governRequest(gov, limits, rpc(call(9, 'search'))),
      null,
      'the token was left',
    )
    assert.equal((await governRequest(gov, limits, rpc(list(10))))?.code, 'rate_limited')
    assert.equal(await governRequest(gov, null, rpc(list(11))), null, 'rate limits off')
  })

  it('keeps each tunnel’s and each rule’s buckets apart', async () => {
    const rules = { rate_limits: [{ tool: '*', limit: 1, per_seconds: 60 }] }
    const a = governance(rules, 'tun_a')
    const b = governance(rules, 'tun_b')
    assert.equal(await governRequest(a, limits, rpc(call(1, 'x'))), null)
    assert.equal(await governRequest(b, limits, rpc(call(1, 'x'))), null)
    assert.equal((await governRequest(a, limits, rpc(call(2, 'x'))))?.code, 'rate_limited')
    const changed = governance({ rate_limits: [{ tool: '*', limit: 2, per_seconds: 60 }] }, 'tun_a')
    assert.equal(
      await governRequest(changed, limits, rpc(call(3, 'x'))),
      null,
      'a changed rule is a new bucket',
    )
  })
})

describe('answerShaper', () => {
  const records: CallRecord[] = []
  const exchange = (body: JsonRpcBody | null) =>
    new ExchangeRecord({
      tunnel: { id: TUNNEL, accountId: 'acc_1', plan: 'free' },
      method: 'POST',
      body,
      sessionId: undefined,
      history: { record: (r) => records.push(r) },
      sessions: null,
      arrivedAt: new Date(),
      started: performance.now(),
    })

  /** The answer `text` as the agent gets it, sent through the shaper in small chunks. */
  function shaped(
    gov: TunnelGovernance | null,
    body: JsonRpcBody | null,
    text: string,
    kind: ResponseKind = 'json',
    rug: RugPull | null = null,
  ): string | null {
    const shaper = answerShaper(gov, body, exchange(body), rug)
    if (shaper === null) return null
    const messages = shaper(kind)
    if (messages === null) return null
    const bytes = Buffer.from(text)
    const out: Uint8Array[] = []
    for (let i = 0; i < bytes.length; i += 7) out.push(...messages.push(bytes.subarray(i, i + 7)))
    out.push(...messages.end())
    return Buffer.concat(out).toString()
  }

  it('needs nothing when there is no policy and nothing to record', () => {
    assert.equal(answerShaper(null, null, exchange(null)), null)
    assert.equal(shaped(governance({}), rpc(list(1)), '{}', 'other'), null)
  })

  it('removes hidden tools from the tools/list answer, keeping the rest of it', () => {
    const gov = governance({ tools: { deny: ['shell_*'] } })
    const answer = listed(1, [tool('search'), tool('shell_exec')], { nextCursor: 'n2' })
    const text = shaped(gov, rpc(list(1)), JSON.stringify(answer))
    assert.deepEqual(JSON.parse(text!), listed(1, [tool('search')], { nextCursor: 'n2' }))
  })

  it('filters only the answers to tools/list requests of a batch, and SSE events too', () => {
    const gov = governance({ tools: { deny: ['secret'] } })
    const body = rpc([list('l'), call('c', 'search')])
    const answer = [listed('l', [tool('secret'), tool('a')]), listed('c', [tool('secret')])]
    assert.deepEqual(JSON.parse(shaped(gov, body, JSON.stringify(answer))!), [
      listed('l', [tool('a')]),
      listed('c', [tool('secret')]),
    ])
    const sse = `id: 1\ndata: ${JSON.stringify(listed('l', [tool('secret'), tool('b')]))}\n\n`
    const out = shaped(gov, body, sse, 'sse')!
    assert.ok(!out.includes('"secret"'), out)
    assert.match(out, /"name":"b"/)
  })

  it('filters a listing a GET stream replays (Last-Event-ID) as the answer to its request was', () => {
    const gov = governance({ tools: { deny: ['shell_*'] } })
    const listing = listed(2, [tool('search'), tool('shell_exec')])
    const replay = `id: 9\nevent: message\ndata: ${JSON.stringify(listing)}\n\n`
    const out = shaped(gov, null, replay, 'sse')!
    assert.ok(!out.includes('shell_exec'), out)
    assert.match(out, /^id: 9\ndata: .*"name":"search"/)
    // A call's answer holding a `tools` array that is not a listing's is left alone in a POST.
    assert.equal(shaped(gov, rpc(call(2, 'x')), JSON.stringify(listing)), JSON.stringify(listing))
    // Nothing to filter: a GET's stream is not rewritten.
    assert.equal(shaped(governance({}), null, replay, 'sse'), null)
  })

  it('filters an answer whose id is spelled differently but that agents match to the listing', () => {
    // Agents' SDKs match responses by Number(id): "1", " 1" and "1e0" all answer request 1.
    const gov = governance({ tools: { deny: ['shell_*'] } })
    for (const [requestId, answerId] of [
      [1, '1'],
      [1, ' 1'],
      [1, '1e0'],
      [0, ''],
      ['7', 7],
    ] as const) {
      const answer = JSON.stringify(listed(answerId, [tool('search'), tool('shell_exec')]))
      const out = JSON.parse(shaped(gov, rpc(list(requestId)), answer)!) as {
        id: unknown
        result: { tools: { name: string }[] }
      }
      assert.deepEqual(
        out.result.tools.map((t) => t.name),
        ['search'],
        `request ${JSON.stringify(requestId)} answered as ${JSON.stringify(answerId)}`,
      )
      assert.equal(out.id, answerId, 'the id goes on as the server wrote it')
    }
    const other = JSON.stringify(listed('list-1', [tool('shell_exec')]))
    // A listing answering nothing this request asked would reach the agent as the answer to one
    // of its own pending listings: cut off.
    assert.equal(shaped(gov, rpc(list(1)), other), '', 'an answer to nothing asked is cut off')
    // Whatever request carries it, alone or in a batch, SSE or JSON: only tapped, its answer
    // ends short of the chunk that would complete it.
    for (const [answer, kind] of [
      [`[${other},${other}]`, 'json'],
      [`data: ${other}\n\n`, 'sse'],
    ] as const) {
      const out = shaped(gov, rpc(call(2, 'x')), answer, kind)!
      assert.ok(out.length < answer.length && answer.startsWith(out), kind)
    }
    // What no agent takes for a listing of its own passes: no id, or no tools array.
    for (const harmless of [
      JSON.stringify({ ...listed(1, [tool('shell_exec')]), id: null }),
      JSON.stringify({ jsonrpc: '2.0', id: 'list-1', result: { tools: { shell_exec: {} } } }),
      JSON.stringify({ jsonrpc: '2.0', id: 'list-1', error: { code: 1, message: 'tools' } }),
    ]) {
      assert.equal(shaped(gov, rpc(call(2, 'x')), harmless), harmless)
    }
  })

  it('cuts off a listing no check could read, which lenient agents still take', () => {
    // Strict SDKs drop these; Python's reads each as the answer to its pending listing, and the
    // policy filters only valid answers.
    const gov = governance({ tools: { deny: ['shell_*'] } })
    const tools = JSON.stringify([tool('search'), tool('shell_exec')])
    const forms = {
      'an error beside the result': `{"jsonrpc":"2.0","id":1,"result":{"tools":${tools}},"error":null}`,
      'a method that is not a string': `{"jsonrpc":"2.0","id":1,"method":5,"result":{"tools":${tools}}}`,
      // Valid as a request, which never carries a result: readers that look for `result` first
      // take it for an answer (found by a hostile review).
      'a string method beside the result': `{"jsonrpc":"2.0","id":1,"method":"x","result":{"tools":${tools}}}`,
      'NaN, which JSON.parse refuses': `{"jsonrpc":"2.0","id":1,"result":{"tools":${tools},"n":NaN}}`,
      'Infinity in a batch': `[{"jsonrpc":"2.0","id":1,"result":{"tools":${tools},"n":-Infinity}}]`,
    }
    for (const [form, answer] of Object.entries(forms)) {
      // As a stray, as the answer to the listing itself, and replayed on a GET's stream.
      for (const body of [rpc(call(2, 'x')), rpc(list(1)), null]) {
        for (const kind of ['json', 'sse'] as const) {
          const text = kind === 'sse' ? `data: ${answer}\n\n` : answer
          const shaper = answerShaper(gov, body, exchange(body))!(kind)!
          const bytes = Buffer.from(text)
          const out = Buffer.concat([...shaper.push(bytes), ...shaper.end()]).toString()
          const where = `${form}, ${kind}, ${body === null ? 'GET' : 'POST'}`
          assert.equal(shaper.cut, true, where)
          assert.doesNotMatch(out, /shell_exec/, where) // one chunk: nothing of it is sent
        }
      }
    }
    // NaN in an answer that is no listing passes as it came.
    const odd = '{"jsonrpc":"2.0","id":2,"result":{"content":[],"n":NaN}}'
    assert.equal(shaped(gov, rpc(call(2, 'x')), odd), odd)
  })

  it('passes answers through untouched when nothing needs rewriting', () => {
    const answer = JSON.stringify(listed(1, [tool('shell_exec')]))
    assert.equal(shaped(governance({}), rpc(list(1)), answer), answer)
    const gov = governance({ tools: { deny: ['shell_*'] } })
    for (const text of [
      'not json at all',
      '{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"x"}}',
      '[]',
    ]) {
      assert.equal(shaped(gov, rpc(list(1)), text), text)
    }
  })

  it('masks secrets in what reaches the agent only when redaction is forwarded', () => {
    const token = `ghp_${'Zz09'.repeat(9)}`
    const answer = JSON.stringify({
      jsonrpc: '2.0',
      id: 4,
      result: { content: [{ type: 'text', text: `key ${token}` }], password: 'hunter2' },
    })
    const kept = shaped(
      governance({ redaction: { keys: ['password'] } }),
      rpc(call(4, 'x')),
      answer,
    )
    assert.equal(kept, answer, 'redaction is for what Burrow stores unless forwarded')
    const masked = shaped(
      governance({ redaction: { keys: ['password'], forwarded: true } }),
      rpc(call(4, 'x')),
      answer,
    )!
    assert.ok(!masked.includes(token) && !masked.includes('hunter2'), masked)
    assert.match(masked, /\[REDACTED:github_token\]/)
    assert.match(masked, /\[REDACTED:password\]/)
  })

  it('forwards an answer naming a member twice as it was scanned, not as sent', () => {
    // Found by a review: JSON.parse keeps the last "text", the redactor found nothing in it, and
    // the answer went as sent, the token in the first one.
    const token = `ghp_${'Zz09'.repeat(9)}`
    const answer = `{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"${token}","text":"ok"}]}}`
    const forwarded = governance({ redaction: { detect_secrets: true, forwarded: true } })
    for (const kind of ['json', 'sse'] as const) {
      const text = kind === 'json' ? answer : `data: ${answer}\n\n`
      const out = shaped(forwarded, rpc(call(4, 'x')), text, kind)!
      assert.ok(!out.includes(token), out)
      assert.ok(out.includes('{"type":"text","text":"ok"}'), out)
    }
  })

  it('keeps the envelope of a forwarded answer whatever the patterns match', () => {
    // Patterns that match the version, a string id and a method's name mask only the content.
    const gov = governance({
      redaction: { patterns: ['2\\.0', 'req-[0-9]+', 'notifications/[a-z]+'], forwarded: true },
    })
    const answer = {
      jsonrpc: '2.0',
      id: 'req-7',
      result: { content: [{ type: 'text', text: 'req-8 2.0' }] },
    }
    const out = JSON.parse(shaped(gov, rpc(call('req-7', 'x')), JSON.stringify(answer))!) as {
      jsonrpc: string
      id: string
      result: { content: { text: string }[] }
    }
    assert.equal(out.jsonrpc, '2.0')
    assert.equal(out.id, 'req-7')
    assert.equal(out.result.content[0]!.text, '[REDACTED:pattern] [REDACTED:pattern]')
    const note = `data: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { data: 'req-1' } })}\n\n`
    const sse = shaped(gov, rpc(call('req-7', 'x')), note, 'sse')!
    assert.match(sse, /"jsonrpc":"2.0","method":"notifications\/message"/)
    assert.match(sse, /"data":"\[REDACTED:pattern\]"/)
  })

  it('withholds a forwarded answer whose keys could not be scanned, with an error for its id', () => {
    const gov = outOfScanTime()
    const answer = JSON.stringify({ jsonrpc: '2.0', id: 4, result: { content: [] } })
    const out = JSON.parse(shaped(gov, rpc(call(4, 'x')), answer)!) as unknown
    assert.deepEqual(out, {
      jsonrpc: '2.0',
      id: 4,
      error: { code: -32603, message: UNSCANNED_ANSWER },
    })
    // A notification goes on with its content masked, and its envelope whole.
    const note = `data: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progress: 1 } })}\n\n`
    const sse = shaped(gov, rpc(call(4, 'x')), note, 'sse')!
    assert.match(
      sse,
      /"jsonrpc":"2.0","method":"notifications\/progress","params":\{"\[REDACTED:unscanned\]":1\}/,
    )
  })

  it('records a withheld answer as an error in history', () => {
    const gov = outOfScanTime()
    const body = rpc(call(4, 'x'))
    const record = exchange(body)
    const messages = answerShaper(gov, body, record)!('json')!
    const out = Buffer.concat([
      ...messages.push(Buffer.from('{"jsonrpc":"2.0","id":4,"result":{"content":[]}}')),
      ...messages.end(),
    ]).toString()
    assert.match(out, /"error"/)
    records.length = 0
    record.answered(200, [['content-type', 'application/json']])
    record.closed()
    assert.equal(records.length, 1)
    assert.equal(records[0]!.outcome, 'error')
  })

  it('redacts forwarded text that is not JSON-RPC as text', () => {
    const gov = governance({ redaction: { forwarded: true } })
    const key = 'AKIAIOSFODNN7EXAMPLE'
    for (const [text, kind] of [
      [JSON.stringify(`token ${key}`), 'json'],
      [`not json ${key}`, 'json'],
      [`data: ${JSON.stringify(key)}\n\n`, 'sse'],
      [`data: plain ${key}\n\n`, 'sse'],
    ] as const) {
      const out = shaped(gov, rpc(call(1, 'x')), text, kind)
      assert.ok(
        out !== null && !out.includes(key) && out.includes('[REDACTED:aws_access_key]'),
        out!,
      )
    }
  })

  it('redacts forwarded JSON that is not a message as JSON, so escapes hide no secret', () => {
    const gov = governance({ redaction: { forwarded: true } })
    const key = 'AKIAIOSFODNN7EXAMPLE'
    // A JSON string as the whole answer (some servers' errors), the key written with escapes:
    // as text, no detector saw it.
    const escaped = `"token \\u0041${key.slice(1)} \\/"`
    assert.equal(JSON.parse(escaped), `token ${key} /`)
    for (const kind of ['json', 'other'] as const) {
      const out = shaped(gov, rpc(call(1, 'x')), escaped, kind)
      assert.equal(JSON.parse(out!), 'token [REDACTED:aws_access_key] /', kind)
    }
    // JSON with nothing to mask passes as it came, spacing and escapes kept.
    const clean = '"fine \\u0041"'
    assert.equal(shaped(gov, rpc(call(1, 'x')), clean, 'json'), clean)
  })

  it('applies a configured key named result, error or params to what is forwarded', () => {
    const gov = governance({ redaction: { keys: ['error'], forwarded: true } })
    const answer = { jsonrpc: '2.0', id: 1, error: { code: 1, message: 'hunter2' } }
    const out = shaped(gov, rpc(call(1, 'x')), JSON.stringify(answer))!
    assert.deepEqual(JSON.parse(out), { jsonrpc: '2.0', id: 1, error: '[REDACTED:error]' })
  })

  it('records answers that could not be written back as errors in history', () => {
    const gov = governance({ tools: { deny: ['shell_*'] } })
    const body = rpc([list(1), call(2, 'x')])
    const record = exchange(body)
    const messages = answerShaper(gov, body, record)!('json')!
    const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`
    const answer = `[${JSON.stringify(listed(1, [tool('shell_exec')]))},{"jsonrpc":"2.0","id":2,"result":{"deep":${deep}}}]`
    const out = Buffer.concat([...messages.push(Buffer.from(answer)), ...messages.end()]).toString()
    assert.equal((JSON.parse(out) as unknown[]).length, 2)
    assert.match(out, /nests too deeply/)
    records.length = 0
    record.answered(200, [['content-type', 'application/json']])
    record.closed()
    assert.deepEqual(
      records.map((r) => r.outcome),
      ['error', 'error'],
    )
  })

  it('withholds what the policy fails on: an error for an answer, a mask for the rest', () => {
    const gov = governance({ redaction: { forwarded: true } })
    gov.redactor.redactMessage = () => {
      throw new Error('a bug in the redactor')
    }
    const answer = JSON.stringify([
      { jsonrpc: '2.0', method: 'notifications/message', params: { data: 'x' } },
      { jsonrpc: '2.0', id: 1, result: { content: [] } },
    ])
    assert.deepEqual(JSON.parse(shaped(gov, rpc(call(1, 'x')), answer)!), [
      '[REDACTED:withheld]',
      { jsonrpc: '2.0', id: 1, error: { code: -32603, message: UNCHECKED_ANSWER } },
    ])
  })

  it('shapes an answer of another type to a request whose answers it rewrites', () => {
    const gov = governance({ tools: { deny: ['shell_*'] } })
    const listing = answerShaper(gov, rpc(list(1)), exchange(rpc(list(1))))!
    assert.equal(listing('other')?.mustRead, true)
    const redacting = governance({ redaction: { forwarded: true } })
    assert.equal(
      answerShaper(redacting, rpc(call(1, 'x')), exchange(null))!('other')?.mustRead,
      true,
    )
    // Its error page is redacted as text.
    assert.equal(
      answerShaper(redacting, rpc(call(1, 'x')), exchange(null))!('other')?.readsText,
      true,
    )
    // A notification asks for no answer: nothing must be read, but what can be is redacted.
    const note = rpc({ jsonrpc: '2.0', method: 'notifications/initialized' })
    const noted = answerShaper(redacting, note, exchange(note))!
    assert.equal(noted('other')?.mustRead, false)
    assert.equal(noted('other')?.readsText, true)
    assert.equal(noted('json')?.mustRead, true, 'JSON-RPC messages in it are rewritten')
    // Without forwarded redaction there is no text to redact; where listings are filtered, an
    // answer of a type an agent reads messages from is watched even there (it could carry a
    // listing an older SDK takes for the answer to its own), and must be read when it is JSON.
    const filtering = governance({ tools: { deny: ['shell_*'] } })
    const notedFiltering = answerShaper(filtering, note, exchange(note))!
    assert.equal(notedFiltering('other')?.mustRead, false)
    assert.equal(notedFiltering('other')?.cutsStrays, true)
    assert.equal(notedFiltering('json')?.mustRead, true)
    // Where listings are filtered, any request's answer is watched: it could carry a listing.
    const watched = answerShaper(filtering, rpc(call(1, 'x')), exchange(null))!
    assert.equal(watched('json')?.mustRead, true)
    assert.equal(watched('other')?.cutsStrays, true)
    const open = governance({})
    assert.equal(answerShaper(open, rpc(call(1, 'x')), exchange(null))?.('other') ?? null, null)
  })

  it('masks what is not a message whole, envelope and all, and never throws on it', () => {
    const gov = governance({ redaction: { forwarded: true } })
    const key = 'AKIAIOSFODNN7EXAMPLE'
    for (const answer of [
      [key, { jsonrpc: '2.0', id: 1, result: {} }],
      [null, { jsonrpc: '2.0', id: 1, result: { text: key } }],
      [
        { jsonrpc: '2.0', id: { token: key }, result: {} },
        { jsonrpc: '2.0', id: 1, result: {} },
      ],
      [
        { jsonrpc: key, id: 1, result: {} },
        { jsonrpc: '2.0', id: 1, result: {} },
      ],
      [
        { jsonrpc: '2.0', method: [key], params: {} },
        { jsonrpc: '2.0', id: 1, result: {} },
      ],
      [
        { jsonrpc: '2.0', id: key, result: {}, error: {} },
        { jsonrpc: '2.0', id: 1, result: {} },
      ],
    ]) {
      for (const kind of ['json', 'sse'] as const) {
        const text = JSON.stringify(answer)
        const out = shaped(
          gov,
          rpc(call(1, 'x')),
          kind === 'sse' ? `data: ${text}\n\n` : text,
          kind,
        )
        assert.ok(out !== null && !out.includes(key), `${kind}: ${out}`)
        assert.match(out, /\{"jsonrpc":"2.0","id":1,"result":\{/, 'the valid answer goes on')
      }
    }
  })
})

/** A server that refuses what `governRequest` refuses, as the edge answers it. */
describe('refusals on the wire', () => {
  let server: Server
  let port: number
  let gov: TunnelGovernance
  let limits: MemoryCallRateLimits
  let rug: RugPull | null

  const post = (message: unknown) =>
    new Promise<{ status: number; headers: IncomingHttpHeaders; text: string }>(
      (resolve, reject) => {
        const req = request(
          { host: '127.0.0.1', port, method: 'POST', path: '/mcp', agent: false },
          (res) => {
            const chunks: Buffer[] = []
            res.on('data', (c: Buffer) => chunks.push(c))
            res.on('end', () =>
              resolve({
                status: res.statusCode!,
                headers: res.headers,
                text: Buffer.concat(chunks).toString(),
              }),
            )
          },
        )
        req.on('error', reject)
        req.end(JSON.stringify(message))
      },
    )

  before(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        const read = readJsonRpcBody(Buffer.concat(chunks))
        const body = isBodyProblem(read) ? null : read
        void governRequest(gov, limits, body, rug).then((refused) => {
          if (refused === null) {
            res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
            return
          }
          sendRefusal(res, refused.code, refused.message, refused.reason, {
            id: refusalIds(body),
            ...(refused.headers ? { headers: refused.headers } : {}),
          })
        })
      })
    })
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    port = (server.address() as AddressInfo).port
  })

  after(() => server.close())

  beforeEach(() => {
    limits = new MemoryCallRateLimits(() => 0)
    rug = null
  })

  it('answers a denied call with the envelope carrying its id', async () => {
    gov = governance({ tools: { deny: ['shell_*'] } })
    assertRefusal(await post(call('req-é-1', 'shell_exec')), {
      policy: 'tool_denied',
      id: 'req-é-1',
      reason: /"shell_exec"/,
    })
    assertRefusal(await post(call(0, 'shell_exec')), { policy: 'tool_denied', id: 0 })
    assert.equal((await post(call(1, 'search'))).status, 200)
  })

  it('answers a refused batch with one envelope per request, notifications left out', async () => {
    gov = governance({ tools: { deny: ['shell_*'] } })
    const res = await post([
      call(1, 'search'),
      { jsonrpc: '2.0', method: 'notifications/progress', params: {} },
      call('two', 'shell_rm'),
      list(3),
    ])
    assert.equal(res.status, 403)
    const bodies = JSON.parse(res.text) as RefusalEnvelope[]
    assert.deepEqual(
      bodies.map((b) => b.id),
      [1, 'two', 3],
    )
    for (const body of bodies) {
      assertRefusal(
        { ...res, text: JSON.stringify(body) },
        { policy: 'tool_denied', id: body.id as number | string },
      )
    }
  })

  it('answers a call over the limit with 429, Retry-After and its id', async () => {
    gov = governance({ rate_limits: [{ tool: 'search', limit: 1, per_seconds: 10 }] })
    assert.equal((await post(call(1, 'search'))).status, 200)
    const res = await post(call(2, 'search'))
    assertRefusal(res, { policy: 'rate_limited', id: 2, reason: /retry in 10 s/ })
    assert.equal(res.headers['retry-after'], '10')
  })

  it('answers concurrent calls over the limit: exactly the limit pass', async () => {
    gov = governance({ rate_limits: [{ tool: 'search', limit: 5, per_seconds: 60 }] })
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => post(call(i, 'search'))))
    assert.equal(answers.filter((a) => a.status === 200).length, 5)
    for (const [i, a] of answers.entries()) {
      if (a.status !== 200) assertRefusal(a, { policy: 'rate_limited', id: i })
    }
  })

  describe('with rug-pull protection holding changed tools', () => {
    let database: TestDatabase
    let store: Store
    let pins: ToolPins
    let tunnel: { id: string; accountId: string }

    const rugFor = async (body: JsonRpcBody | null): Promise<RugPull> => ({
      pins,
      tunnel,
      mode: 'hold',
      zeroKnowledge: false,
      state: touchesTools(body) ? await pins.state(tunnel.id) : null,
    })

    /** The tools/list answer as the agent gets it, through the edge's shaping. */
    async function listThrough(tools: unknown[]): Promise<string[]> {
      const body = rpc(list(1))
      const shaper = answerShaper(gov, body, exchangeFor(body), await rugFor(body))
      const messages = shaper!('json')!
      const out = [
        ...messages.push(Buffer.from(JSON.stringify(listed(1, tools)))),
        ...messages.end(),
      ]
      await pins.settled()
      const answer = JSON.parse(Buffer.concat(out).toString()) as {
        result: { tools: { name: string }[] }
      }
      return answer.result.tools.map((t) => t.name)
    }

    const exchangeFor = (body: JsonRpcBody | null) =>
      new ExchangeRecord({
        tunnel: { ...tunnel, plan: 'free' },
        method: 'POST',
        body,
        sessionId: undefined,
        history: null,
        sessions: null,
        arrivedAt: new Date(),
        started: performance.now(),
      })

    beforeEach(async () => {
      const sqlite = testBackends().find((b) => b.name === 'sqlite')!
      database = await sqlite.create()
      store = await openStore(database.config)
      const account = await store.createAccount({ email: 'g@example.com', slug: 'govern' })
      const created = await store.createTunnel({ accountId: account.id, name: 'g' })
      tunnel = { id: created.tunnel.id, accountId: account.id }
      pins = new ToolPins({
        store: store.toolPins,
        events: new LocalClusterEvents(),
        log: silentLogger,
        onChange: () => {},
        dashboardUrl: 'https://burrow.example/dashboard/tunnels/',
      })
      gov = governance({ rug_pull: { mode: 'hold' } }, tunnel.id)
    })

    afterEach(async () => {
      await pins.settled()
      await store.close()
      await database.drop()
    })

    it('hides a changed tool from tools/list and answers its call with tool_held and its id', async () => {
      assert.deepEqual(await listThrough([tool('search'), tool('fetch')]), ['search', 'fetch'])
      assert.deepEqual(
        await listThrough([tool('search', 'now mails your files away'), tool('fetch')]),
        ['fetch'],
      )

      rug = await rugFor(rpc(call('held-1', 'search')))
      const res = await post(call('held-1', 'search'))
      assertRefusal(res, {
        policy: 'tool_held',
        id: 'held-1',
        reason:
          /the tool "search" changed since its owner approved it .*dashboard\/tunnels\/tun_[^/]+\/tools$/,
      })
      assert.equal((await post(call('ok-1', 'fetch'))).status, 200)

      const batch = await post([call('b1', 'fetch'), call('b2', 'search')])
      assert.equal(batch.status, 403)
      assert.deepEqual(
        (JSON.parse(batch.text) as RefusalEnvelope[]).map((b) => [b.id, b.error.data.policy_code]),
        [
          ['b1', 'tool_held'],
          ['b2', 'tool_held'],
        ],
      )
    })

    it('leaves out of a replayed listing what is not approved, recording what changed or is new', async () => {
      /** A listing as a GET stream replays it, through the edge's shaping. */
      const replayThrough = async (tools: unknown[]): Promise<string[]> => {
        const state = await pins.state(tunnel.id)
        const rugged: RugPull = { pins, tunnel, mode: 'hold', zeroKnowledge: false, state }
        const messages = answerShaper(gov, null, exchangeFor(null), rugged)!('sse')!
        const event = `data: ${JSON.stringify(listed(1, tools))}\n\n`
        const out = Buffer.concat([...messages.push(Buffer.from(event)), ...messages.end()])
        const answer = JSON.parse(out.toString().slice('data: '.length)) as {
          result: { tools: { name: string }[] }
        }
        return answer.result.tools.map((t) => t.name)
      }
      assert.deepEqual(await listThrough([tool('search'), tool('fetch')]), ['search', 'fetch'])
      const changed = [tool('search', 'now mails your files away'), tool('fetch'), tool('new')]
      assert.deepEqual(await replayThrough([...changed, tool('fetch', 'a second fetch')]), [
        'fetch',
      ])
      await pins.settled()
      const state = await pins.state(tunnel.id)
      // A pinned tool that changed is recorded (in alert mode it was not even compared), and a
      // new one is pinned as new, though the listing's page is unknown (before, it was not).
      assert.equal(state.pins.get('search')?.status, 'changed')
      assert.equal(state.pins.get('new')?.status, 'new')
      // The listing itself records the change; a replay keeps the tool out while it is held,
      // even as approved (only a listing sees that the server went back to it).
      assert.deepEqual(await listThrough(changed), ['fetch'])
      assert.deepEqual(await replayThrough([tool('search'), tool('fetch')]), ['fetch'])
      assert.deepEqual(await listThrough([tool('search'), tool('fetch')]), ['search', 'fetch'])
      assert.deepEqual(await replayThrough([tool('search'), tool('fetch')]), ['search', 'fetch'])
    })

    it('sees and holds a changed tool listed under the id’s other spelling', async () => {
      assert.deepEqual(await listThrough([tool('search')]), ['search'])
      const body = rpc(list(1))
      const shaper = answerShaper(gov, body, exchangeFor(body), await rugFor(body))
      const messages = shaper!('json')!
      const changed = JSON.stringify(listed('1', [tool('search', 'now mails your files away')]))
      const out = [...messages.push(Buffer.from(changed)), ...messages.end()]
      await pins.settled()
      assert.deepEqual(JSON.parse(Buffer.concat(out).toString()), listed('1', []))
      rug = await rugFor(rpc(call(2, 'search')))
      assertRefusal(await post(call(2, 'search')), { policy: 'tool_held', id: 2 })
    })

    it('must read a tools/list answer it watches, whatever its type', async () => {
      gov = governance({ rug_pull: { mode: 'alert' } }, tunnel.id)
      const body = rpc(list(1))
      const watching = answerShaper(gov, body, exchangeFor(body), {
        ...(await rugFor(body)),
        mode: 'alert',
      })!
      for (const kind of ['json', 'sse', 'other'] as const) {
        const messages = watching(kind)
        assert.ok(messages !== null, kind)
        assert.equal(messages.mustRead, true, kind)
        messages.release()
      }
      // A call's answer is read too: it could carry a listing answering none of its requests.
      // Of another type, only what an agent could still read messages from is refused.
      const callBody = rpc(call(2, 'search'))
      const calling = answerShaper(gov, callBody, exchangeFor(callBody), await rugFor(callBody))!
      assert.equal(calling('other')!.mustRead, false)
      assert.equal(calling('other')!.cutsStrays, true)
      assert.equal(calling('json')!.mustRead, true)
      // A notification's too: it answers nothing, but an older SDK reads the messages in it and
      // takes a listing there for the answer to its own.
      const note = rpc({ jsonrpc: '2.0', method: 'notifications/initialized' })
      const noting = answerShaper(gov, note, exchangeFor(note), await rugFor(note))!
      assert.equal(noting('other')!.mustRead, false)
      assert.equal(noting('other')!.cutsStrays, true)
      assert.equal(noting('json')!.mustRead, true)
    })

    it('holds nothing in alert mode, and a denial comes before a hold', async () => {
      await listThrough([tool('search')])
      await listThrough([tool('search', 'changed')])
      rug = { ...(await rugFor(rpc(call(1, 'search')))), mode: 'alert' }
      assert.equal((await post(call(1, 'search'))).status, 200)
      rug = await rugFor(rpc(call(2, 'search')))
      gov = governance({ tools: { deny: ['search'] }, rug_pull: { mode: 'hold' } }, tunnel.id)
      assertRefusal(await post(call(2, 'search')), { policy: 'tool_denied', id: 2 })
    })
  })
})
