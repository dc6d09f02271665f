/**
 * Bytes of answer copies held at once (the edge copies an answer's messages as they pass, to tap
 * or rewrite them) are bounded per client address, per tunnel and per node
 * (`edge/answer-budget.ts`): the bounds themselves, and a real burrowd whose tunnel client
 * (anyone with a key) answers with large JSON bodies it does not end. Six answers of 12 MiB to
 * one agent pass its address's 32 MiB: every one still reaches its agent whole, the copies held
 * stay within the bound (read from burrowd's metrics, which read the budget), the answer that
 * could not be copied is recorded without its body and marked cut, another agent's `tools/list`
 * is still filtered, and that agent's own `tools/list`, which cannot be held whole meanwhile, is
 * refused with the envelope rather than passed unfiltered. Once the answers end or their agents
 * leave, nothing is held.
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import type { IncomingMessage } from 'node:http'
import { after, before, describe, it } from 'node:test'
import { promisify } from 'node:util'
import type { MuxStream } from '@burrow/protocol'
import { connectFake, type FakeClient } from '../../../../test/helpers/fake-client.js'
import { BURROWD, startService, type Service } from '../../../../test/helpers/stack.js'
import { ANSWER_COPY_BYTES_PER_ADDRESS, AnswerBudget } from '../../src/edge/answer-budget.js'
import { assertRefusal } from '../helpers/assert-refusal.js'
import { hostOf, openRequest, readAll } from '../helpers/edge-request.js'
import { parsePrometheus } from '../helpers/parse-prometheus.js'

describe('AnswerBudget', () => {
  it('takes within every bound (address, tunnel, node) and gives back what was taken', () => {
    const budget = new AnswerBudget({ perAddress: 8, perTunnel: 10, perNode: 16 })
    const a1 = { address: 'a', tunnel: 't1' }
    assert.ok(budget.take(a1, 6))
    assert.ok(!budget.take(a1, 3), 'past the address bound')
    assert.ok(!budget.take({ address: 'b', tunnel: 't1' }, 5), 'past the tunnel bound')
    assert.ok(budget.take({ address: 'b', tunnel: 't2' }, 8))
    assert.ok(!budget.take({ address: 'c', tunnel: 't3' }, 3), 'past the node bound')
    assert.equal(budget.total, 14)
    assert.ok(budget.take(a1, 2))
    assert.equal(budget.heldByTunnel('t1'), 8)
    assert.equal(budget.heldByAddress('a'), 8)
    assert.ok(!budget.take(a1, 1), 'past the address and node bounds')
    budget.give(a1, 8)
    budget.give({ address: 'b', tunnel: 't2' }, 8)
    assert.equal(budget.total, 0)
    assert.equal(budget.heldByTunnel('t1'), 0)
    assert.equal(budget.heldByAddress('b'), 0)
    assert.ok(budget.take({ address: 'c', tunnel: 't3' }, 8), 'nothing left taken')
  })

  it("counts an address's answers per tunnel: one tunnel's cannot spend another's share", () => {
    const budget = new AnswerBudget({ perAddress: 8, perTunnel: 10, perNode: 32 })
    const evil = budget.for({ address: 'a', tunnel: 'evil' })
    assert.ok(evil.take(8))
    assert.ok(!evil.take(1), "past the address's share of this tunnel")
    assert.ok(budget.for({ address: 'a', tunnel: 'victim' }).take(8), 'another tunnel is untouched')
  })
})

describe('AnswerBudget: copies that only tap', () => {
  it("hold half of a tunnel's and the node's share, however many addresses read slowly", () => {
    const budget = new AnswerBudget({ perAddress: 8, perTunnel: 16, perNode: 64 })
    const taps = ['a', 'b', 'c'].map((address) => budget.for({ address, tunnel: 't' }, false))
    assert.ok(taps[0]!.take(6))
    assert.ok(!taps[1]!.take(3), "past half of the tunnel's share")
    assert.ok(taps[1]!.take(2))
    assert.ok(!taps[2]!.take(1))
    // The other half stays for answers being rewritten, which fail closed without it.
    const rewrite = budget.for({ address: 'd', tunnel: 't' })
    assert.ok(rewrite.take(8))
    assert.equal(budget.heldByTunnel('t'), 16)
    taps[0]!.give(6)
    taps[1]!.give(2)
    rewrite.give(8)
    assert.equal(budget.total, 0)
    assert.ok(taps[2]!.take(8), 'given back, the taps have their half again')
  })

  it('take nothing when the whole budget refuses', () => {
    const budget = new AnswerBudget({ perAddress: 8, perTunnel: 16, perNode: 64 })
    assert.ok(budget.for({ address: 'a', tunnel: 't' }).take(8))
    const tap = budget.for({ address: 'a', tunnel: 't' }, false)
    assert.ok(!tap.take(1), "past the address's share, counted with rewrites")
    assert.ok(budget.for({ address: 'b', tunnel: 't' }, false).take(8), 'the tap half is untouched')
  })
})

const SIZE = 12 * 1024 * 1024
const CHUNK = 64 * 1024
const JSON_HEADERS: [string, string][] = [['content-type', 'application/json']]

/** A JSON-RPC answer to `id` of exactly `size` bytes, its result starting with `members`. */
function answerOf(id: number, size: number, members = '"content":[],'): Buffer {
  const head = `{"jsonrpc":"2.0","id":${id},"result":{${members}"pad":"`
  const tail = '"}}'
  return Buffer.from(head + 'x'.repeat(size - head.length - tail.length) + tail)
}

/** Queue `bytes` on `stream` in frame-sized chunks (the mux sends them as credit allows). */
function writeAll(stream: MuxStream, bytes: Buffer): void {
  for (let at = 0; at < bytes.length; at += CHUNK) stream.write(bytes.subarray(at, at + CHUNK))
}

/** Resolves once `res` has brought `bytes` body bytes. */
function received(res: IncomingMessage, bytes: number): Promise<void> {
  let count = 0
  return new Promise((resolve) => {
    res.on('data', (c: Buffer) => {
      count += c.length
      if (count >= bytes) resolve()
    })
  })
}

describe('answers the edge copies, against a real burrowd', { timeout: 120_000 }, () => {
  let service: Service
  let host: string
  let tunnelId: string
  let client: FakeClient
  let token: string

  const api = async <T>(method: string, path: string, body?: unknown) => {
    const res = await fetch(`http://127.0.0.1:${service.port}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    })
    return { status: res.status, json: (await res.json()) as T }
  }

  before(async () => {
    service = await startService({ BURROW_LOG: 'warn' }, { plan: 'scale' })
    const tunnel = await service.tunnel('answers')
    host = hostOf(tunnel.publicUrl)
    tunnelId = tunnel.id
    client = await connectFake(service.broker, tunnel.key)
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [BURROWD, 'token', 'create', '--account', 'acme', '--name', 'answers', '--json'],
      { env: service.env },
    )
    token = (JSON.parse(stdout) as { token: string }).token
    // `tools/list` answers are filtered (rewritten); `tools/call` answers are only tapped.
    const policy = await api('PUT', `/api/tunnels/${tunnelId}/policy`, {
      tools: { deny: ['drop'] },
    })
    assert.equal(policy.status, 200, JSON.stringify(policy.json))
  })
  after(async () => {
    await client?.close()
    await service?.close()
  })

  /** Bytes of answer copies burrowd holds now, as its metrics tell (they read the budget). */
  async function held(): Promise<number> {
    const text = await (await fetch(`http://127.0.0.1:${service.port}/metrics`)).text()
    const family = parsePrometheus(text).find((f) => f.name === 'burrowd_edge_answer_copy_bytes')
    assert.ok(family, 'burrowd reports the answer copies it holds')
    return Number(family.metrics[0]?.value ?? NaN)
  }

  /** Wait until burrowd holds no answer copies (they are given back as answers end). */
  async function noneHeld(): Promise<void> {
    let now = await held()
    for (let tries = 0; now !== 0 && tries < 400; tries++) {
      await new Promise((r) => setTimeout(r, 50))
      now = await held()
    }
    assert.equal(now, 0, 'answer copies still held')
  }

  /** Send a JSON-RPC request; the agent's response as it streams, and the tunnel's request. */
  async function call(id: number, method: string, from?: string) {
    const open = openRequest(service.port, host, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        // burrowd trusts loopback proxies: the agent's address as one would pass it.
        ...(from !== undefined ? { 'x-forwarded-for': from } : {}),
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id,
        method,
        ...(method === 'tools/call' ? { params: { name: 'big', arguments: {} } } : {}),
      }),
    })
    const request = await client.nextRequest()
    return { open, request }
  }

  it('lets answers past the budget reach their agents whole, holding copies within it', async () => {
    const ids = [1, 2, 3, 4, 5, 6]
    const calls = await Promise.all(ids.map((id) => call(id, 'tools/call')))
    const bodies = ids.map((id) => answerOf(id, SIZE))
    // One after another, so that what is copied does not depend on how the answers interleave.
    const agents: { whole: Promise<Buffer> }[] = []
    for (const [i, { open, request }] of calls.entries()) {
      request.stream.respond({ status: 200, headers: JSON_HEADERS }, undefined, false)
      // All but the last byte: the answer does not end.
      writeAll(request.stream, bodies[i]!.subarray(0, SIZE - 1))
      const res = await open.response
      assert.equal(res.statusCode, 200)
      // The edge holds back a JSON answer's last chunk until the next (or its end): it may
      // complete a listing the request did not make.
      const arrived = received(res, SIZE - 1 - CHUNK)
      agents.push({ whole: readAll(res) })
      await arrived
    }
    const holding = await held()
    assert.ok(holding > 0, 'the answers are tapped')
    assert.ok(
      holding <= ANSWER_COPY_BYTES_PER_ADDRESS,
      `${holding} bytes of copies held, past one address's ${ANSWER_COPY_BYTES_PER_ADDRESS}`,
    )

    // Another agent's `tools/list` is still held and filtered: one reader took only its share.
    const tools = [{ name: 'drop' }, { name: 'read' }]
    const other = await call(9, 'tools/list', '203.0.113.5')
    const otherBody = answerOf(9, 8 * 1024 * 1024, `"tools":${JSON.stringify(tools)},`)
    other.request.stream.respond({ status: 200, headers: JSON_HEADERS }, undefined, false)
    writeAll(other.request.stream, otherBody)
    other.request.stream.end()
    const otherRes = await other.open.response
    assert.equal(otherRes.statusCode, 200)
    const filtered = JSON.parse((await readAll(otherRes)).toString()) as {
      result: { tools: { name: string }[] }
    }
    assert.deepEqual(
      filtered.result.tools.map((t) => t.name),
      ['read'],
    )

    // Meanwhile a `tools/list` to filter cannot be held whole: refused with its id, not passed
    // unfiltered (the tunnel client sees its stream cancelled).
    const list = await call(7, 'tools/list')
    const listBody = answerOf(7, 10 * 1024 * 1024, `"tools":${JSON.stringify(tools)},`)
    list.request.stream.respond({ status: 200, headers: JSON_HEADERS }, undefined, false)
    writeAll(list.request.stream, listBody)
    list.request.stream.end()
    const listRes = await list.open.response
    const text = (await readAll(listRes)).toString()
    assertRefusal(
      { status: listRes.statusCode ?? 0, headers: listRes.headers, text },
      { policy: 'upstream_unreachable', id: 7, reason: /not forwarded/ },
    )
    assert.ok(!text.includes('"drop"'))

    // The answers end: every agent gets its body whole, byte for byte. (After the listing: an
    // answer the edge could not read that ends while the same agent has a listing in flight is
    // cut, as it could be that listing.)
    calls.forEach(({ request }, i) => {
      request.stream.write(bodies[i]!.subarray(SIZE - 1))
      request.stream.end()
    })
    const wholes = await Promise.all(agents.map((a) => a.whole))
    wholes.forEach((body, i) => assert.ok(body.equals(bodies[i]!), `answer ${ids[i]}`))
    await noneHeld()

    // With the copies given back, a `tools/list` is held and filtered again.
    const again = await call(8, 'tools/list')
    again.request.replyJson(200, { jsonrpc: '2.0', id: 8, result: { tools } })
    const listed = JSON.parse((await readAll(await again.open.response)).toString()) as {
      result: { tools: { name: string }[] }
    }
    assert.deepEqual(
      listed.result.tools.map((t) => t.name),
      ['read'],
    )

    // History: the answer that passed uncopied has no body and is marked cut; the others are
    // kept (cut to what history stores).
    let calls_: { rpc_id: unknown; response: unknown; bodies_cut: boolean; outcome: string }[] = []
    for (let tries = 0; tries < 400; tries++) {
      const listing = await api<{ calls: typeof calls_ }>(
        'GET',
        `/api/tunnels/${tunnelId}/calls?method=tools/call&limit=50`,
      )
      calls_ = listing.json.calls
      if (calls_.length >= ids.length) break
      await new Promise((r) => setTimeout(r, 50))
    }
    assert.equal(calls_.length, ids.length)
    const uncopied = calls_.filter((c) => c.response === null)
    assert.ok(uncopied.length >= 1, 'one answer passed without a copy')
    for (const c of uncopied) {
      assert.equal(c.bodies_cut, true)
      assert.equal(c.outcome, 'ok')
    }
  })

  it('gives the copies back when agents leave mid-answer', async () => {
    const calls = await Promise.all([11, 12].map((id) => call(id, 'tools/call')))
    const agents = await Promise.all(
      calls.map(async ({ open, request }) => {
        request.stream.respond({ status: 200, headers: JSON_HEADERS }, undefined, false)
        writeAll(request.stream, answerOf(1, SIZE).subarray(0, 1024 * 1024))
        await received(await open.response, 1024 * 1024 - CHUNK) // all but the chunk held back
        return { open, request }
      }),
    )
    assert.ok((await held()) >= 2 * 1024 * 1024)
    for (const { open } of agents) open.req.destroy()
    await Promise.all(agents.map(({ request }) => request.reset))
    await noneHeld()
  })
})
