/**
 * Forwarded redaction of answers in another charset than UTF-8, through real burrowd and a
 * scripted tunnel client: an error page labelled UTF-16 is refused (the edge reads answers as
 * UTF-8), and one in UTF-16 that names no charset is read without its NULs and masked. Before,
 * both reached the agent with the secret whole once its NULs were dropped (found by a review).
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { after, before, describe, it } from 'node:test'
import { connectFake, type FakeClient } from '../../../../test/helpers/fake-client.js'
import { BURROWD, startService, type Service } from '../../../../test/helpers/stack.js'
import { bearerApi } from '../../../../test/helpers/web-client.js'
import { hostOf, postJson } from '../helpers/edge-request.js'

const run = promisify(execFile)
const TOKEN = 'ghp_0123456789abcdefghijklmnopqrstuvwxyzAB'

describe('forwarded redaction of answers in UTF-16', { timeout: 60_000 }, () => {
  let service: Service
  let client: FakeClient
  let host: string

  before(async () => {
    service = await startService({ BURROW_LOG: 'info' }, { plan: 'scale' })
    const { stdout } = await run(
      process.execPath,
      [BURROWD, 'token', 'create', '--account', 'acme', '--name', 'charsets', '--json'],
      { env: service.env },
    )
    const { token } = JSON.parse(stdout) as { token: string }
    const api = bearerApi(`http://127.0.0.1:${service.port}`, token)
    const tunnel = await service.tunnel('charsets')
    const policy = { redaction: { forwarded: true, detect_secrets: true } }
    const put = await api('PUT', `/api/tunnels/${tunnel.id}/policy`, policy)
    assert.equal(put.status, 200, JSON.stringify(put.json))
    client = await connectFake(service.broker, tunnel.key)
    host = hostOf(tunnel.publicUrl)
  })

  after(async () => {
    await client?.close()
    await service?.close()
  })

  async function callAnswered(id: number, type: string | null, body: Buffer) {
    const call = { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'read' } }
    const pending = postJson(service.port, host, call)
    const req = await client.nextRequest()
    req.reply(500, type === null ? [] : [['content-type', type]], body)
    return pending
  }

  it('refuses an error page labelled UTF-16, with the envelope and the id', async () => {
    for (const type of ['text/plain; charset=utf-16le', 'application/json; charset=utf-16le']) {
      const res = await callAnswered(3, type, Buffer.from(`failed: ${TOKEN}`, 'utf16le'))
      assert.equal(res.status, 502, type)
      assert.ok(!res.text.replace(/\0/g, '').includes(TOKEN), res.text)
      const envelope = JSON.parse(res.text) as { id: number; error: { message: string } }
      assert.equal(envelope.id, 3)
      assert.equal(envelope.error.message, 'answer unreadable')
      assert.match(res.text, /is in the charset \\"utf-16le\\"/)
    }
  })

  it('masks a secret in an error page in UTF-16 that names no charset', async () => {
    for (const type of ['text/plain', null]) {
      const res = await callAnswered(4, type, Buffer.from(`failed: ${TOKEN}`, 'utf16le'))
      assert.equal(res.status, 500)
      assert.ok(!res.text.replace(/\0/g, '').includes(TOKEN), res.text)
      assert.match(res.text, /^failed: /)
    }
  })
})
