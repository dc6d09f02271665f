// Monthly quotas end to end: real burrowd (in-process counters, and Redis counters when
// TEST_REDIS_URL is set), real `burrow up`, and a local MCP server that counts what reaches it.
// Counters are set with the operator's `burrowd usage set` on the running service.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { nextResetOf, secondsUntilReset } from '../../packages/server/src/quota/period.js'
import { type Child } from '../helpers/child.js'
import {
  deleteTunnelKeys,
  liveCounter,
  openSession,
  postMcp,
  startCountingServer,
  toolCall,
  usageSet,
  type Answer,
  type CountingServer,
} from '../helpers/quota-stack.js'
import { startClient, startService, type Service } from '../helpers/stack.js'

const FREE_CALLS = 100_000
const FREE_BYTES = 5_000_000_000
const SCALE_CALLS = 5_000_000

/** `2026-12-01 00:00 UTC` for the month of `at`. */
function resetText(at: Date): string {
  const iso = nextResetOf(at).toISOString()
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`
}

/** Assert `answer` is exactly the quota refusal for `id` with `reason`, sent between t0 and t1. */
function assertQuotaRefusal(
  answer: Answer,
  id: string | number,
  reason: string,
  t0: Date,
  t1: Date,
) {
  assert.equal(answer.status, 429, answer.text)
  assert.equal(answer.headers.get('x-burrow-error'), 'quota_exceeded')
  assert.match(String(answer.headers.get('content-type')), /^application\/json/)
  const retryAfter = Number(answer.headers.get('retry-after'))
  assert.ok(
    retryAfter >= secondsUntilReset(t1) && retryAfter <= secondsUntilReset(t0),
    `Retry-After ${retryAfter} is not the seconds to 00:00 UTC on the 1st`,
  )
  assert.deepEqual(answer.json, {
    jsonrpc: '2.0',
    id,
    error: {
      code: -32000,
      message: 'quota exceeded for this tunnel',
      data: { policy_code: 'quota_exceeded', reason, http_status: 429 },
    },
  })
}

describe('monthly quotas through real processes', () => {
  let server: CountingServer
  let service: Service
  let cli: Child
  let url: string
  let tunnelId: string

  before(async () => {
    server = await startCountingServer()
    service = await startService({ BURROW_LOG: 'info' })
    const tunnel = await service.tunnel('quota')
    url = tunnel.url
    tunnelId = tunnel.id
    cli = await startClient(service, tunnel.key, ['--upstream', server.url])
  })

  after(async () => {
    await cli?.stop()
    await server?.child.stop()
    await service?.close()
  })

  it('passes the last tool call of the month and refuses the next with the 429 envelope', async () => {
    const set = await usageSet(service, tunnelId, ['--tool-calls', String(FREE_CALLS - 1)])
    assert.equal(set.applied, 'service')
    assert.equal(set.tool_calls, FREE_CALLS - 1)
    const session = await openSession(url)
    const before = (await server.counts()).tool_calls

    const last = await postMcp(url, toolCall(1, 'echo', { message: 'last' }), session)
    assert.equal(last.status, 200, last.text)
    assert.deepEqual((last.json as { result: unknown }).result, {
      content: [{ type: 'text', text: 'Echo: last' }],
    })

    const t0 = new Date()
    const refused = await postMcp(url, toolCall('over', 'echo', { message: 'over' }), session)
    const t1 = new Date()
    assertQuotaRefusal(
      refused,
      'over',
      `the monthly tool-call limit of 100,000 for this tunnel (Free plan) was reached; it resets on ${resetText(t0)}`,
      t0,
      t1,
    )
    assert.equal(
      (await server.counts()).tool_calls,
      before + 1,
      'the refused call reached the server',
    )
    assert.equal(await liveCounter(service, tunnelId, 'tool_calls'), FREE_CALLS)

    // Requests that are not tool calls still pass.
    const list = await postMcp(url, { jsonrpc: '2.0', id: 3, method: 'tools/list' }, session)
    assert.equal(list.status, 200, list.text)
  })

  it('passes a call while bandwidth is below the limit and refuses the next one', async () => {
    const session = await openSession(url)
    await usageSet(service, tunnelId, [
      '--tool-calls',
      '0',
      '--bandwidth-bytes',
      String(FREE_BYTES - 1),
    ])
    const before = (await server.counts()).tool_calls
    const passed = await postMcp(url, toolCall(7, 'blob', { size: 1000 }), session)
    assert.equal(passed.status, 200, passed.text)
    // Response bytes are counted as they stream, so the last batch may land just after the
    // agent has read the end of the response.
    let used = 0
    for (let i = 0; i < 100; i++) {
      used = await liveCounter(service, tunnelId, 'bandwidth_bytes')
      if (used >= FREE_BYTES - 1 + 1000) break
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    assert.ok(used >= FREE_BYTES - 1 + 1000, `request and response bytes were not counted: ${used}`)

    const t0 = new Date()
    const refused = await postMcp(url, toolCall(8, 'echo', { message: 'over' }), session)
    const t1 = new Date()
    assertQuotaRefusal(
      refused,
      8,
      `the monthly bandwidth limit of 5 GB for this tunnel (Free plan) was reached; it resets on ${resetText(t0)}`,
      t0,
      t1,
    )
    // Any request is refused now, not only tool calls; nothing refused is counted.
    const list = await postMcp(url, { jsonrpc: '2.0', id: 9, method: 'tools/list' }, session)
    assert.equal(list.status, 429)
    assert.equal((await server.counts()).tool_calls, before + 1)
    assert.equal(await liveCounter(service, tunnelId, 'bandwidth_bytes'), used)
    assert.equal(await liveCounter(service, tunnelId, 'tool_calls'), 1)
  })
})

const backends = [
  { name: 'in-process counters', env: {} as NodeJS.ProcessEnv },
  ...(process.env.TEST_REDIS_URL
    ? [{ name: 'Redis counters', env: { BURROW_REDIS_URL: process.env.TEST_REDIS_URL } }]
    : []),
]

for (const backend of backends) {
  describe(`200 concurrent tool calls against an allowance of 100 (${backend.name})`, () => {
    let server: CountingServer
    let service: Service
    let cli: Child
    let url: string
    let tunnelId: string

    before(async () => {
      server = await startCountingServer()
      service = await startService({ BURROW_LOG: 'info', ...backend.env }, { plan: 'scale' })
      const tunnel = await service.tunnel('busy')
      url = tunnel.url
      tunnelId = tunnel.id
      cli = await startClient(service, tunnel.key, ['--upstream', server.url])
    })

    after(async () => {
      await cli?.stop()
      await server?.child.stop()
      await service?.close()
      if (backend.env.BURROW_REDIS_URL && tunnelId) {
        await deleteTunnelKeys(backend.env.BURROW_REDIS_URL, tunnelId)
      }
    })

    it('forwards exactly 100, refuses 100, and stops the counter exactly at the limit', async () => {
      const set = await usageSet(service, tunnelId, ['--tool-calls', String(SCALE_CALLS - 100)])
      assert.equal(set.applied, backend.env.BURROW_REDIS_URL ? 'redis' : 'service')
      const sessions = await Promise.all(Array.from({ length: 20 }, () => openSession(url)))
      assert.equal(new Set(sessions).size, 20)
      const before = (await server.counts()).tool_calls

      const answers = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          postMcp(url, toolCall(i, 'echo', { message: `call ${i}` }), sessions[i % 20]),
        ),
      )
      const passed = answers.filter((a) => a.status === 200)
      const refused = answers.filter((a) => a.status === 429)
      assert.equal(passed.length, 100)
      assert.equal(refused.length, 100)
      for (const [i, answer] of answers.entries()) {
        const body = answer.json as { id: unknown; error?: { data: { policy_code: string } } }
        assert.equal(body.id, i, 'every answer carries its own request id')
        if (answer.status === 429) assert.equal(body.error?.data.policy_code, 'quota_exceeded')
      }
      assert.equal((await server.counts()).tool_calls - before, 100)
      assert.equal(await liveCounter(service, tunnelId, 'tool_calls'), SCALE_CALLS)
      const more = await postMcp(url, toolCall('one-more', 'echo'), sessions[0])
      assert.equal(more.status, 429)
    })
  })
}
