/**
 * Agents against a tunnel's allow/deny policy and rate limits, seen by a scripted tunnel client:
 * what the edge lets through to the local side. Found by a hostile review: a `tools/call` whose
 * name was not a string (`["secret_tool"]`, which a server reading `TOOLS[params.name]` runs as
 * secret_tool) passed every policy unchecked; it is refused as invalid now. So is a message that
 * names a member twice (`{"name":"secret_tool","name":"safe_x"}`): the policy read the last, and a
 * server whose parser keeps the first ran the other.
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { after, before, describe, it } from 'node:test'
import { connectFake, type FakeClient } from '../helpers/fake-client.js'
import { publicFetch } from '../helpers/public-fetch.js'
import { BURROWD, startService, type Service } from '../helpers/stack.js'
import { bearerApi } from '../helpers/web-client.js'

const run = promisify(execFile)

describe('agents against the policy', () => {
  let service: Service
  let token: string
  let tunnel: { id: string; key: string; url: string }
  let client: FakeClient

  const api = (method: string, path: string, body?: unknown) =>
    bearerApi(`http://127.0.0.1:${service.port}`, token)<Record<string, unknown>>(
      method,
      path,
      body,
    )
  const setPolicy = async (policy: unknown) => {
    const put = await api('PUT', `/api/tunnels/${tunnel.id}/policy`, policy)
    assert.equal(put.status, 200, JSON.stringify(put.json))
  }

  /**
   * POST `raw` to the tunnel; resolves with the HTTP status and, when the edge forwarded it,
   * the body the tunnel client received (then answered with an empty result).
   */
  const send = async (
    raw: string,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; forwarded: string | null; text: string }> => {
    let forwarded: string | null = null
    const seen = client.nextRequest(3_000).then(
      async (req) => {
        forwarded = (await req.body).toString('utf8')
        req.replyJson(200, { jsonrpc: '2.0', id: 1, result: { content: [] } })
      },
      () => {},
    )
    const post = (body: string) =>
      publicFetch(tunnel.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-03-26',
          ...headers,
        },
        body,
      })
    const res = await post(raw)
    const text = await res.text()
    if (res.status !== 200) {
      // A refused request was not forwarded if the next one the tunnel client sees is a ping
      // sent after it (no waiting for a request that never comes).
      const ping = '{"jsonrpc":"2.0","id":"after","method":"ping"}'
      await (await post(ping)).text()
      await seen
      if (forwarded === ping) forwarded = null
    } else await seen
    return { status: res.status, forwarded, text }
  }

  before(async () => {
    service = await startService()
    const { stdout } = await run(
      process.execPath,
      [BURROWD, 'token', 'create', '--account', 'acme', '--name', 'policy', '--json'],
      { env: service.env },
    )
    token = (JSON.parse(stdout) as { token: string }).token
    tunnel = await service.tunnel('policy-names')
    client = await connectFake(service.broker, tunnel.key)
  })

  after(async () => {
    await client?.close().catch(() => {})
    await service?.close()
  })

  it('baseline: a denied string name is refused, alone, in a batch and as a notification', async () => {
    await setPolicy({ tools: { allow: ['safe_*'] } })
    const call = (id: number | null, name: unknown) => ({
      jsonrpc: '2.0',
      ...(id === null ? {} : { id }),
      method: 'tools/call',
      params: { name, arguments: {} },
    })
    const alone = await send(JSON.stringify(call(1, 'secret_tool')))
    assert.equal(alone.status, 403)
    assert.equal(alone.forwarded, null)
    const batch = await send(JSON.stringify([call(1, 'safe_x'), call(2, 'secret_tool')]))
    assert.equal(batch.status, 403)
    assert.equal(batch.forwarded, null)
    const note = await send(JSON.stringify(call(null, 'secret_tool')))
    assert.notEqual(note.status, 200)
    assert.equal(note.forwarded, null)
  })

  for (const [label, params] of [
    ['name as an array', { name: ['secret_tool'], arguments: {} }],
    ['name as an object with toString', { name: { toString: 'x' }, arguments: {} }],
    ['name as a number', { name: 12345, arguments: {} }],
    ['no name at all', { arguments: {} }],
  ] as const) {
    it(`an allow-list refuses a tools/call whose ${label}`, async () => {
      await setPolicy({ tools: { allow: ['safe_*'] } })
      const out = await send(
        JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params }),
      )
      assert.equal(out.status, 400, out.text)
      assert.match(out.text, /needs params\.name as a string/)
      assert.equal(
        out.forwarded,
        null,
        `forwarded to the local server with status ${out.status}: ${out.forwarded}`,
      )
    })
  }

  it('a params array (by-position) is not a way around the allow-list', async () => {
    await setPolicy({ tools: { allow: ['safe_*'] } })
    const out = await send(
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: ['secret_tool', {}] }),
    )
    assert.equal(out.forwarded, null, `forwarded with status ${out.status}: ${out.forwarded}`)
  })

  it('a rate limit on every tool is not escaped by a name that is not a string', async () => {
    await setPolicy({ rate_limits: [{ tool: '*', limit: 1, per_seconds: 3600 }] })
    const raw = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: ['expensive'], arguments: {} },
    })
    const statuses: number[] = []
    for (let i = 0; i < 3; i++) statuses.push((await send(raw)).status)
    assert.deepEqual(statuses, [400, 400, 400])
  })

  it('a policy change applies to the very next request', async () => {
    await setPolicy({ tools: { allow: ['*'] } })
    const raw = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'later_denied', arguments: {} },
    })
    assert.equal((await send(raw)).status, 200)
    await setPolicy({ tools: { deny: ['later_*'] } })
    const out = await send(raw)
    assert.equal(out.status, 403)
    assert.equal(out.forwarded, null)
  })

  it('a member named twice is refused with the id, in every spelling, alone and in a batch', async () => {
    await setPolicy({ tools: { allow: ['safe_*'] } })
    const twice = (name: string, id = 1) =>
      `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{${name}:"secret_tool", "arguments":{},"name":"safe_x"}}`
    for (const [label, raw] of [
      ['plainly', twice('"name"')],
      ['escaped', twice('"na\\u006de"')],
      ['with space before the colon', twice('"name" \n')],
      ['in a batch', `[{"jsonrpc":"2.0","id":7,"method":"tools/list"},${twice('"name"', 8)}]`],
    ] as const) {
      const out = await send(raw)
      assert.equal(out.status, 400, `${label}: ${out.text}`)
      assert.match(out.text, /the member \\"name\\" appears twice in one object/, label)
      assert.match(out.text, label === 'in a batch' ? /"id":8/ : /"id":1\b/, label)
      assert.equal(out.forwarded, null, `${label}: forwarded ${out.forwarded}`)
    }
    // Deeper than the message too: what the history keeps must be what the server reads.
    const nested = await send(
      '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"safe_x","arguments":{"path":"/a","path":"/etc/shadow"}}}',
    )
    assert.equal(nested.status, 400, nested.text)
    assert.match(nested.text, /"id":3/)
    assert.equal(nested.forwarded, null)
    // Which of two ids was meant nobody can tell: the refusal carries none.
    const ids = await send('{"jsonrpc":"2.0","id":4,"id":5,"method":"tools/list"}')
    assert.equal(ids.status, 400, ids.text)
    assert.match(ids.text, /"id":null/)
  })

  it('names a server matching them without case reads as one are refused with the id', async () => {
    await setPolicy({ tools: { allow: ['safe_*'] } })
    // Go's encoding/json (mcp-go, the Go SDK before 1.3.1) reads the last, and folds ſ to s.
    for (const [label, raw, id] of [
      [
        'name and Name',
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"safe_x","Name":"secret_tool"}}',
        /"id":1\b/,
      ],
      [
        'a ping with Method',
        '{"jsonrpc":"2.0","id":2,"method":"ping","Method":"tools/call","params":{"name":"secret_tool"}}',
        /"id":2\b/,
      ],
      [
        'paramſ',
        '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"safe_x"},"paramſ":{"name":"secret_tool"}}',
        /"id":3\b/,
      ],
      [
        'a response holding a call',
        '{"jsonrpc":"2.0","id":4,"result":{},"Method":"tools/call","Params":{"name":"secret_tool"}}',
        /"id":4\b/,
      ],
    ] as const) {
      const out = await send(raw)
      assert.equal(out.status, 400, `${label}: ${out.text}`)
      assert.match(out.text, /without case/, label)
      assert.match(out.text, id, label)
      assert.equal(out.forwarded, null, `${label}: forwarded ${out.forwarded}`)
    }
  })

  it('one name in different objects, or in strings, is no repeat', async () => {
    await setPolicy({ tools: { allow: ['safe_*'] } })
    const raw =
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"safe_x","arguments":{"name":"name","x":{"name":1},"list":[{"name":2},{"name":3}],"s":"\\"name\\":1,\\"name\\":2"}}}'
    const out = await send(raw)
    assert.equal(out.status, 200, out.text)
    assert.equal(out.forwarded, raw)
  })
})
