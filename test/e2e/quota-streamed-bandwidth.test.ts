// The bandwidth quota against responses that never end, through real processes: a local server
// behind `burrow up` floods a session's GET stream (and the SSE answer to one call) with
// notifications after the edge admitted it a byte below the month's limit. Before, the bytes
// were counted and never stopped: one stream opened below the limit carried a Free tunnel's
// month on without bound (found by a hostile review). Now every response still streaming is cut
// once the month is RESPONSE_OVERAGE_BYTES past the limit.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { RESPONSE_OVERAGE_BYTES } from '../../packages/server/src/quota/quota-gate.js'
import { startChild, type Child } from '../helpers/child.js'
import { publicFetch } from '../helpers/public-fetch.js'
import { buyPlan, type ApiCaller } from '../helpers/dev-checkout.js'
import { liveCounter, openSession, toolCall, usageSet } from '../helpers/quota-stack.js'
import { BURROWD, ROOT, startClient, startService, type Service } from '../helpers/stack.js'

const run = promisify(execFile)

const FREE_BYTES = 5_000_000_000
const PRO_BYTES = 25_000_000_000
const MB = 1024 * 1024
/** What the local server sends on each stream: four times the overage. */
const FLOOD_BYTES = 4 * RESPONSE_OVERAGE_BYTES

/** Read `res`'s body to its end or its cut; the bytes the agent received. */
async function received(res: Response): Promise<number> {
  let n = 0
  try {
    for await (const chunk of res.body!) n += (chunk as Uint8Array).length
  } catch {
    // Cut mid-way: what came before counts.
  }
  return n
}

const AGENT_HEADERS = {
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-06-18',
}

describe('bandwidth quota on responses that stream on', () => {
  let upstream: Child
  let upstreamPort: number
  let service: Service
  let cli: Child
  let url: string
  let tunnelId: string

  const stats = async () =>
    (await (await fetch(`http://127.0.0.1:${upstreamPort}/stats`)).json()) as {
      written: number
      closedEarly: number
    }

  before(async () => {
    upstream = startChild(process.execPath, [join(ROOT, 'test/fixtures/flood-sse-server.mjs')], {
      env: { ...process.env, FLOOD_BYTES: String(FLOOD_BYTES) },
    })
    upstreamPort = Number((await upstream.waitFor(/listening on (\d+)/))[1])
    service = await startService()
    const tunnel = await service.tunnel('flood')
    url = tunnel.url
    tunnelId = tunnel.id
    cli = await startClient(service, tunnel.key, [
      '--upstream',
      `http://127.0.0.1:${upstreamPort}/mcp`,
    ])
  })

  after(async () => {
    await cli?.stop()
    await upstream?.stop()
    await service?.close()
  })

  it('cuts a GET stream admitted below the limit once the month is past it', async () => {
    const session = await openSession(url)
    await usageSet(service, tunnelId, ['--bandwidth-bytes', String(FREE_BYTES - 1)])
    const res = await publicFetch(url, {
      method: 'GET',
      headers: { ...AGENT_HEADERS, 'mcp-session-id': session },
    })
    assert.equal(res.status, 200, 'admitted a byte below the limit')
    const got = await received(res)
    assert.ok(
      got < FLOOD_BYTES / 2,
      `the agent received ${(got / MB).toFixed(1)} MiB past the limit`,
    )
    const used = await liveCounter(service, tunnelId, 'bandwidth_bytes')
    assert.ok(used >= FREE_BYTES - 1 + got, `what flowed was not all counted: ${used}`)
    // Cut only once the month was the overage past the limit. Counted as it passes the edge, so
    // the agent may have received less: what was on its way to it when the stream was cut (a
    // busy machine's agent read 14 MB of the 16 MiB) is not delivered.
    assert.ok(
      used >= FREE_BYTES - 1 + RESPONSE_OVERAGE_BYTES,
      `a stream straddling the limit was cut at ${used - FREE_BYTES + 1} bytes past it`,
    )

    const again = await publicFetch(url, {
      method: 'GET',
      headers: { ...AGENT_HEADERS, 'mcp-session-id': session },
    })
    await again.arrayBuffer()
    assert.equal(again.status, 429, 'the next stream is refused')
    assert.equal(again.headers.get('x-burrow-error'), 'quota_exceeded')
  })

  it("cuts a call's SSE answer that streams on past the limit", async () => {
    await usageSet(service, tunnelId, ['--bandwidth-bytes', '0'])
    const session = await openSession(url)
    await usageSet(service, tunnelId, ['--bandwidth-bytes', String(FREE_BYTES - 1)])
    const before = await stats()
    const res = await publicFetch(url, {
      method: 'POST',
      headers: { ...AGENT_HEADERS, 'content-type': 'application/json', 'mcp-session-id': session },
      body: JSON.stringify(toolCall(1, 'flood')),
    })
    assert.equal(res.status, 200)
    const got = await received(res)
    assert.ok(
      got < FLOOD_BYTES / 2,
      `the agent received ${(got / MB).toFixed(1)} MiB past the limit`,
    )
    // The local server's stream is ended too, not left writing into the tunnel.
    for (let i = 0; i < 100 && (await stats()).closedEarly === before.closedEarly; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    const after = await stats()
    assert.equal(after.closedEarly, before.closedEarly + 1, 'the server was told to stop')
    assert.ok(after.written - before.written < FLOOD_BYTES)

    // History shows the call refused for the quota, not as the 200 it began as (found by a
    // hostile review).
    const made = await run(
      process.execPath,
      [BURROWD, 'token', 'create', '--account', 'acme', '--json'],
      { env: service.env },
    )
    const token = (JSON.parse(made.stdout) as { token: string }).token
    let calls: { status: number; outcome: string; policy_code: string | null }[] = []
    for (let i = 0; i < 100 && calls.length === 0; i++) {
      const listed = await fetch(
        `http://127.0.0.1:${service.port}/api/tunnels/${tunnelId}/calls?tool=flood`,
        { headers: { authorization: `Bearer ${token}` } },
      )
      calls = ((await listed.json()) as { calls: typeof calls }).calls
      if (calls.length === 0) await new Promise((resolve) => setTimeout(resolve, 50))
    }
    assert.equal(calls.length, 1)
    assert.equal(calls[0]!.status, 429)
    assert.equal(calls[0]!.outcome, 'refused')
    assert.equal(calls[0]!.policy_code, 'quota_exceeded')
  })

  it('cuts a stream admitted under Scale by Pro once the account moves to Pro (found by a hostile review)', async () => {
    // Before, a stream was cut only by the limit of the plan it was admitted under: opened on
    // Scale and kept open, it carried Scale's bandwidth on after a downgrade, every month.
    const made = await run(
      process.execPath,
      [BURROWD, 'token', 'create', '--account', 'acme', '--json'],
      { env: service.env },
    )
    const token = (JSON.parse(made.stdout) as { token: string }).token
    const base = `http://127.0.0.1:${service.port}`
    const api: ApiCaller = async <T>(method: string, path: string, body?: unknown) => {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      })
      return { status: res.status, json: (await res.json()) as T }
    }
    await buyPlan(base, api, 'scale')
    await usageSet(service, tunnelId, ['--bandwidth-bytes', '0'])
    const session = await openSession(url)
    // Past Pro's limit by the overage, far below Scale's.
    await usageSet(service, tunnelId, [
      '--bandwidth-bytes',
      String(PRO_BYTES + RESPONSE_OVERAGE_BYTES),
    ])
    const res = await publicFetch(url, {
      method: 'GET',
      headers: { ...AGENT_HEADERS, 'mcp-session-id': session },
    })
    assert.equal(res.status, 200, 'admitted under Scale')
    const moved = await api<{ plan?: string }>('POST', '/api/billing/plan', { plan: 'pro' })
    assert.equal(moved.status, 200, JSON.stringify(moved.json))
    const got = await received(res)
    assert.ok(
      got < FLOOD_BYTES / 2,
      `the agent received ${(got / MB).toFixed(1)} MiB after the account moved to Pro`,
    )
  })
})
