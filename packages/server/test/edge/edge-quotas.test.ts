/**
 * The edge's quotas on what agents may send: JSON-RPC batches (counted per `tools/call`,
 * refused whole with one envelope per request), notifications (no id), ids of both types,
 * empty and mixed batches. Real built burrowd (`npx tsc -b` first), counters set with
 * `burrowd usage set`, and a scripted fake tunnel client that shows what was forwarded. Also
 * the admin endpoint `usage set` uses, against forged and malformed requests.
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { setTimeout as sleep } from 'node:timers/promises'
import { after, before, describe, it } from 'node:test'
import Database from 'better-sqlite3'
import { connectFake, type FakeClient } from '../../../../test/helpers/fake-client.js'
import { BURROWD, startService, type Service } from '../../../../test/helpers/stack.js'
import { assertRefusal, type RefusalEnvelope } from '../helpers/assert-refusal.js'
import { edgeRequest, hostOf, postJson, type EdgeResponse } from '../helpers/edge-request.js'

const run = promisify(execFile)
const LIMIT = 100_000

const call = (id: string | number | null | undefined, name = 'echo') => ({
  jsonrpc: '2.0',
  ...(id === undefined ? {} : { id }),
  method: 'tools/call',
  params: { name, arguments: {} },
})

describe('edge quotas on batches, notifications and ids', () => {
  let service: Service
  let client: FakeClient
  let host: string
  let tunnelId: string

  const post = (message: unknown) => postJson(service.port, host, message)
  const seen = () => client.requests.length
  const setToolCalls = async (value: number) => {
    await run(
      process.execPath,
      [BURROWD, 'usage', 'set', '--tunnel', tunnelId, '--tool-calls', String(value)],
      { env: service.env },
    )
  }
  const toolCalls = () => {
    const db = new Database(join(service.dataDir, 'burrow.db'), { readonly: true })
    try {
      const row = db
        .prepare("select value from usage_counters where tunnel_id = ? and metric = 'tool_calls'")
        .get(tunnelId) as { value: number } | undefined
      return Number(row?.value ?? 0)
    } finally {
      db.close()
    }
  }
  /** Wait until the stored tool-call count is `value` (counts are written within 200 ms). */
  const storedToolCalls = async (value: number) => {
    const until = Date.now() + 5000
    while (toolCalls() !== value && Date.now() < until) await sleep(20)
    assert.equal(toolCalls(), value)
  }
  /** The refusal array of a refused batch, each checked against the envelope. */
  const batchRefusal = (res: EdgeResponse, ids: readonly (string | number | null)[]) => {
    assert.equal(res.status, 429, res.text)
    assert.equal(res.headers['x-burrow-error'], 'quota_exceeded')
    assert.ok(Number(res.headers['retry-after']) > 0)
    const bodies = JSON.parse(res.text) as RefusalEnvelope[]
    assert.ok(Array.isArray(bodies), 'a refused batch is answered with an array')
    assert.deepEqual(
      bodies.map((b) => b.id),
      ids,
    )
    for (const body of bodies) {
      assertRefusal(
        { ...res, text: JSON.stringify(body) },
        {
          policy: 'quota_exceeded',
          id: body.id as string | number | null,
          reason: /tool-call limit of 100,000 .*Free plan/,
        },
      )
    }
  }

  before(async () => {
    service = await startService({ BURROW_LOG: 'info' })
    const tunnel = await service.tunnel('batches')
    tunnelId = tunnel.id
    host = hostOf(tunnel.publicUrl)
    client = await connectFake(service.broker, tunnel.key)
  })

  after(async () => {
    await client?.close()
    await service?.close()
  })

  // First: a count past 80% later in the month (the tests below) warns at once, and a month is
  // warned of once per node.
  it('raises quota.warning once when a counter reaches 80%', async () => {
    await setToolCalls(79_999)
    const pending = post(call('warn'))
    const req = await client.nextRequest()
    req.replyJson(200, { jsonrpc: '2.0', id: 'warn', result: {} })
    assert.equal((await pending).status, 200)
    await service.proc.waitFor(
      new RegExp(`quota\\.warning: tunnel ${tunnelId} used 80000 of 100000 tool_calls`),
    )
  })

  it('refuses a batch whole when its tool calls do not all fit, one envelope per request', async () => {
    await setToolCalls(LIMIT - 2)
    const before = seen()
    const res = await post([
      call(1),
      call('two'),
      { jsonrpc: '2.0', method: 'notifications/progress', params: {} },
      call(3),
    ])
    batchRefusal(res, [1, 'two', 3])
    assert.equal(seen(), before, 'a refused batch reached the client')
    assert.equal(toolCalls(), LIMIT - 2, 'a refused batch was counted')
  })

  it('forwards a batch whose tool calls fit, counting each of them', async () => {
    const pending = post([
      call(10),
      { jsonrpc: '2.0', id: 11, method: 'tools/list' },
      call('twelve'),
      { jsonrpc: '2.0', id: 'sampling-1', result: {} },
      { jsonrpc: '2.0', method: 'notifications/progress', params: {} },
    ])
    const req = await client.nextRequest()
    assert.match((await req.body).toString(), /"twelve"/, 'the batch is forwarded untouched')
    req.replyJson(200, [
      { jsonrpc: '2.0', id: 10, result: {} },
      { jsonrpc: '2.0', id: 11, result: { tools: [] } },
      { jsonrpc: '2.0', id: 'twelve', result: {} },
    ])
    assert.equal((await pending).status, 200)
    await storedToolCalls(LIMIT)
  })

  it('refuses calls once the limit is reached, and calls without an id always', async () => {
    const before = seen()
    assertRefusal(await post(call(0)), { policy: 'quota_exceeded', id: 0 })
    assertRefusal(await post(call('abc-é')), { policy: 'quota_exceeded', id: 'abc-é' })
    // A call without an id is no call: refused as invalid, never counted nor forwarded.
    assertRefusal(await post(call(undefined)), {
      policy: 'invalid_request',
      id: null,
      jsonRpcCode: -32600,
      reason: /tools\/call is a request: it needs an id/,
    })
    assertRefusal(
      await post([call(undefined), { jsonrpc: '2.0', method: 'notifications/cancelled' }]),
      { policy: 'invalid_request', id: null, jsonRpcCode: -32600 },
    )
    // An id that is neither string nor number makes the message invalid: answered with null.
    assertRefusal(await post(call(null)), {
      policy: 'invalid_request',
      id: null,
      jsonRpcCode: -32600,
    })
    assertRefusal(await post(call({ nested: 1 } as unknown as string)), {
      policy: 'invalid_request',
      id: null,
      jsonRpcCode: -32600,
    })
    assert.equal(seen(), before)
    await storedToolCalls(LIMIT)
  })

  it('still forwards requests that are not tool calls', async () => {
    const pending = post([{ jsonrpc: '2.0', id: 'l', method: 'tools/list' }])
    const req = await client.nextRequest()
    req.replyJson(200, [{ jsonrpc: '2.0', id: 'l', result: { tools: [] } }])
    assert.equal((await pending).status, 200)
  })

  it('records each answered request in the call history, refusals with their code', async () => {
    type Row = { method: string; tool: string | null; status: number; policy_code: string | null }
    const history = () => {
      const db = new Database(join(service.dataDir, 'burrow.db'), { readonly: true })
      try {
        return db
          .prepare('select method, tool, status, policy_code from call_history where tunnel_id = ?')
          .all(tunnelId) as Row[]
      } finally {
        db.close()
      }
    }
    // Written in the background (at least every second): poll, with a generous deadline.
    const deadline = Date.now() + 20_000
    let rows = history()
    while (!rows.some((r) => r.method === 'tools/list') && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      rows = history()
    }
    const has = (row: Row) =>
      assert.ok(
        rows.some((r) => JSON.stringify(r) === JSON.stringify(row)),
        `no ${JSON.stringify(row)} in ${JSON.stringify(rows)}`,
      )
    has({ method: 'tools/call', tool: 'echo', status: 429, policy_code: 'quota_exceeded' })
    assert.ok(
      !rows.some((r) => r.method.startsWith('notifications/')),
      'notifications are not calls and are not recorded',
    )
    has({ method: 'tools/call', tool: 'echo', status: 200, policy_code: null })
    has({ method: 'tools/list', tool: null, status: 200, policy_code: null })
  })

  it('answers an empty batch with 400 invalid_request', async () => {
    const before = seen()
    assertRefusal(await post([]), {
      policy: 'invalid_request',
      jsonRpcCode: -32600,
      reason: /at least one message/,
    })
    assert.equal(seen(), before)
  })

  it('keeps answering while the database refuses the counts, and stores them once it takes them', async () => {
    await setToolCalls(10)
    // Another connection takes the table away, as a full disk or a broken database would.
    const db = new Database(join(service.dataDir, 'burrow.db'))
    try {
      db.exec('alter table usage_counters rename to usage_counters_away')
      for (const id of ['kept-1', 'kept-2']) {
        const pending = post(call(id))
        ;(await client.nextRequest()).replyJson(200, { jsonrpc: '2.0', id, result: {} })
        assert.equal((await pending).status, 200)
      }
      await service.proc.waitFor(/usage counters: writing to the database failed/)
    } finally {
      db.exec('alter table usage_counters_away rename to usage_counters')
      db.close()
    }
    // Counted all along, in memory; written once the table is back.
    await service.proc.waitFor(/usage counters: writing to the database works again/)
    await storedToolCalls(12)
  })

  it('stores the count of a call within a fraction of a second of its admission', async () => {
    await setToolCalls(20)
    const pending = post(call('stored'))
    const req = await client.nextRequest()
    req.replyJson(200, { jsonrpc: '2.0', id: 'stored', result: {} })
    assert.equal((await pending).status, 200)
    await storedToolCalls(21)
  })
})

describe('the usage admin endpoint', () => {
  let service: Service
  let tunnelId: string
  let secret: string

  const admin = (opts: {
    host?: string
    auth?: string
    body?: string
    method?: string
    headers?: Record<string, string>
  }) =>
    edgeRequest(service.port, opts.host ?? `127.0.0.1:${service.port}`, {
      method: opts.method ?? 'POST',
      path: '/internal/usage',
      headers: {
        'content-type': 'application/json',
        ...(opts.auth === undefined ? {} : { authorization: opts.auth }),
        ...opts.headers,
      },
      ...(opts.body === undefined ? {} : { body: opts.body }),
    })

  before(async () => {
    service = await startService({ BURROW_LOG: 'info' })
    tunnelId = (await service.tunnel('admin')).id
    const db = new Database(join(service.dataDir, 'burrow.db'), { readonly: true })
    try {
      const row = db.prepare("select value from settings where key = 'admin_secret'").get() as {
        value: string
      }
      secret = row.value
    } finally {
      db.close()
    }
  })

  after(async () => {
    await service?.close()
  })

  it('sets the counters for a loopback caller with the secret', async () => {
    const res = await admin({
      auth: `Bearer ${secret}`,
      body: JSON.stringify({ tunnel_id: tunnelId, tool_calls: 12, bandwidth_bytes: 3456 }),
    })
    assert.equal(res.status, 200, res.text)
    const body = JSON.parse(res.text) as Record<string, unknown>
    assert.deepEqual([body.tunnel_id, body.tool_calls, body.bandwidth_bytes], [tunnelId, 12, 3456])
    assert.match(String(body.period), /^\d{4}-\d{2}$/)
  })

  it('is not there for public host names, and refuses a missing or wrong secret', async () => {
    const body = JSON.stringify({ tunnel_id: tunnelId, tool_calls: 0 })
    // A name that is not the service's gets nothing of it (service-hosts.ts); a tunnel's host
    // serves only /mcp.
    for (const [host, policy] of [
      ['burrow.example.com', 'tunnel_not_found'],
      [`admin--acme.localhost:${service.port}`, 'not_found'],
    ] as const) {
      const res = await admin({ host, auth: `Bearer ${secret}`, body })
      assertRefusal(res, { policy })
    }
    // Relayed by the proxy in front (its catch-all site passes on a Host of 127.0.0.1 that a
    // stranger sent it): not a request of this machine's operator, whatever the secret.
    for (const headers of [
      { 'x-forwarded-for': '203.0.113.9' },
      { forwarded: 'for=203.0.113.9' },
    ] as Record<string, string>[]) {
      const res = await admin({ auth: `Bearer ${secret}`, body, headers })
      assertRefusal(res, { policy: 'not_found' })
    }
    for (const auth of [undefined, '', `Bearer ${secret}x`, `Basic ${secret}`, secret, 'Bearer ']) {
      assertRefusal(await admin({ auth, body }), { policy: 'unauthorized' })
    }
    assertRefusal(await admin({ auth: `Bearer ${secret}`, method: 'GET' }), {
      policy: 'method_not_allowed',
    })
  })

  it('refuses malformed and oversized bodies', async () => {
    const auth = `Bearer ${secret}`
    for (const [body, reason] of [
      ['not json', /must be JSON/],
      ['[1]', /JSON object/],
      [JSON.stringify({ tunnel_id: 'tun:x', tool_calls: 1 }), /tunnel_id/],
      [JSON.stringify({ tunnel_id: tunnelId, tool_calls: -1 }), /tool_calls/],
      [JSON.stringify({ tunnel_id: tunnelId, bandwidth_bytes: 1.5 }), /bandwidth_bytes/],
      [JSON.stringify({ tunnel_id: tunnelId, tool_calls: '5' }), /tool_calls/],
      [JSON.stringify({ tunnel_id: tunnelId }), /tool_calls, bandwidth_bytes or both/],
    ] as const) {
      assertRefusal(await admin({ auth, body }), { policy: 'invalid_request', reason })
    }
    assertRefusal(await admin({ auth, body: 'x'.repeat(5000) }), { policy: 'payload_too_large' })
  })
})
