/**
 * The monthly quotas are per tunnel, and were counted by tunnel id alone (found by a hostile
 * review): an owner whose tunnel used up its month deleted it and created it again under the same
 * address, and the new tunnel started the month at zero, as often as they liked. A new tunnel now
 * carries on the month of the account's tunnel deleted last this month.
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { after, before, describe, it } from 'node:test'
import { promisify } from 'node:util'
import { answeringClient, TOOL_CALL } from '../helpers/answering-client.js'
import { edgeRequest, hostOf } from '../../packages/server/test/helpers/edge-request.js'
import { usageSet } from '../helpers/quota-stack.js'
import { BURROWD, startService, type Service } from '../helpers/stack.js'

const run = promisify(execFile)
describe('a tunnel deleted and created again', () => {
  let service: Service
  let token: string

  before(async () => {
    service = await startService()
    const made = await run(
      process.execPath,
      [BURROWD, 'token', 'create', '--account', 'acme', '--json'],
      { env: service.env },
    )
    token = (JSON.parse(made.stdout) as { token: string }).token
  })
  after(async () => {
    await service?.close()
  })

  const api = (method: string, path: string, body?: unknown) =>
    edgeRequest(service.port, `localhost:${service.port}`, {
      method,
      path,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })

  async function create(): Promise<{ id: string; key: string; url: string }> {
    const made = await api('POST', '/api/tunnels', {
      name: 'same',
      subdomain: 'same',
      access: 'public',
    })
    assert.equal(made.status, 201, made.text)
    const json = JSON.parse(made.text) as {
      tunnel: { id: string; public_url: string }
      key: string
    }
    return { id: json.tunnel.id, key: json.key, url: json.tunnel.public_url }
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

  it("carries on the deleted tunnel's month: no tool calls left, at the same address", async () => {
    const first = await create()
    const ws1 = await answeringClient(service, first.key)
    assert.equal((await call(first.url)).status, 200, 'a fresh tunnel serves')
    await usageSet(service, first.id, ['--tool-calls', '100000', '--bandwidth-bytes', '12345'])
    assert.equal((await call(first.url)).status, 429)
    ws1.close()
    assert.equal((await api('DELETE', `/api/tunnels/${first.id}`)).status, 204)

    const second = await create()
    assert.equal(second.url, first.url, 'the same public URL again')
    assert.notEqual(second.id, first.id)
    const ws2 = await answeringClient(service, second.key)
    try {
      const refused = await call(second.url)
      assert.equal(refused.status, 429, refused.text)
      assert.equal(refused.headers['x-burrow-error'], 'quota_exceeded')
    } finally {
      ws2.close()
    }

    // Deleted again and made again: the month still carries on (the second carried it).
    assert.equal((await api('DELETE', `/api/tunnels/${second.id}`)).status, 204)
    const third = await create()
    const ws3 = await answeringClient(service, third.key)
    try {
      assert.equal((await call(third.url)).status, 429)
    } finally {
      ws3.close()
    }
  })
})
