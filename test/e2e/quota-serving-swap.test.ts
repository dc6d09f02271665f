/**
 * After a downgrade an account has more tunnels than its plan serves, and its owner chooses
 * which serve. The monthly quotas are per tunnel (found by a hostile review): swapping a stopped
 * tunnel in for one that used up its month gave the account a fresh month, as often as it liked
 * and as many as it had tunnels (a month of Pro, then Free with five tunnels' calls every
 * month). A tunnel that starts serving now carries on the month of the one it displaced, also
 * when it starts because a serving one was deleted.
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { promisify } from 'node:util'
import Database from 'better-sqlite3'
import type { WebSocket } from 'ws'
import { answeringClient, TOOL_CALL } from '../helpers/answering-client.js'
import { edgeRequest, hostOf } from '../../packages/server/test/helpers/edge-request.js'
import { buyPlan } from '../helpers/dev-checkout.js'
import { usageSet } from '../helpers/quota-stack.js'
import { BURROWD, startService, type Service } from '../helpers/stack.js'

const run = promisify(execFile)
describe('choosing which tunnels serve after a downgrade', () => {
  let service: Service
  let base: string
  let token: string
  const sockets: WebSocket[] = []

  before(async () => {
    service = await startService({ BURROW_BILLING_PROVIDER: 'dev' })
    base = `http://127.0.0.1:${service.port}`
    const made = await run(
      process.execPath,
      [BURROWD, 'token', 'create', '--account', 'acme', '--json'],
      { env: service.env },
    )
    token = (JSON.parse(made.stdout) as { token: string }).token
  })
  after(async () => {
    for (const ws of sockets) ws.close()
    await service?.close()
  })

  const api = async <T>(method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    const text = await res.text()
    return { status: res.status, json: (text ? JSON.parse(text) : {}) as T }
  }

  const call = (url: string) =>
    edgeRequest(service.port, hostOf(url), {
      method: 'POST',
      path: '/mcp',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: TOOL_CALL,
    })

  async function until(check: () => Promise<boolean>): Promise<void> {
    while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 200))
  }

  it('carries on the month of the tunnel a chosen one displaces', async () => {
    await buyPlan(base, api, 'pro')
    const tunnels: { id: string; url: string }[] = []
    for (const name of ['first', 'second', 'third']) {
      const made = await api<{ tunnel: { id: string; public_url: string }; key: string }>(
        'POST',
        '/api/tunnels',
        { name, subdomain: name, access: 'public' },
      )
      assert.equal(made.status, 201, JSON.stringify(made.json))
      tunnels.push({ id: made.json.tunnel.id, url: made.json.tunnel.public_url })
      sockets.push(await answeringClient(service, made.json.key))
    }
    const [first, second, third] = tunnels as [
      (typeof tunnels)[0],
      (typeof tunnels)[0],
      (typeof tunnels)[0],
    ]
    await usageSet(service, first.id, ['--tool-calls', '1000000'])
    assert.equal((await call(first.url)).status, 429, 'the first used up its month')

    // The subscription ends: Free serves two tunnels, the oldest.
    const db = new Database(join(service.dataDir, 'burrow.db'), { readonly: true })
    let apiKey: string
    let subscriptionId: string
    try {
      apiKey = (
        db.prepare("select value from settings where key = 'dev_paddle_api_key'").get() as {
          value: string
        }
      ).value
      subscriptionId = (
        db.prepare('select subscription_id from subscriptions').get() as { subscription_id: string }
      ).subscription_id
    } finally {
      db.close()
    }
    const cancelled = await fetch(`${base}/dev/paddle/subscriptions/${subscriptionId}/cancel`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ effective_from: 'immediately' }),
    })
    assert.equal(cancelled.status, 200, await cancelled.text())
    await until(
      async () => (await api<{ plan: string }>('GET', '/api/account')).json.plan === 'free',
    )
    await until(async () => (await call(third.url)).status === 402)

    // The owner swaps the third in for the first: it serves, with the first's month.
    const chosen = await api('PUT', '/api/tunnels/serving', { tunnel_ids: [second.id, third.id] })
    assert.equal(chosen.status, 200, JSON.stringify(chosen.json))
    assert.equal((await call(first.url)).status, 402, 'the first stopped')
    assert.equal((await call(second.url)).status, 200, 'the second kept its own month')
    const swapped = await call(third.url)
    assert.equal(swapped.status, 429, swapped.text)
    assert.equal(swapped.headers['x-burrow-error'], 'quota_exceeded')

    // Swapped back, the first still has its month used up.
    await api('PUT', '/api/tunnels/serving', { tunnel_ids: [first.id, second.id] })
    assert.equal((await call(first.url)).status, 429)
    assert.equal((await call(third.url)).status, 402, 'the third stopped again')
    // A stopped tunnel with a month of its own to spend (the swap above gave the third the first's).
    await usageSet(service, third.id, ['--tool-calls', '0'])

    // Deleted, the first's place goes to the third, which carries on its month: before, it
    // started serving with a fresh one (found by a hostile review: five fresh months on Free).
    const deleted = await api('DELETE', `/api/tunnels/${first.id}`)
    assert.equal(deleted.status, 204, JSON.stringify(deleted.json))
    const promoted = await call(third.url)
    assert.equal(promoted.status, 429, promoted.text)
    assert.equal(promoted.headers['x-burrow-error'], 'quota_exceeded')
    assert.equal((await call(second.url)).status, 200, 'the second kept its own month')
  })
})
