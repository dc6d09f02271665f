/**
 * What the edge reads of a body must be what the local server reads. Found by a hostile review: a
 * body labelled `application/json; charset=utf-7` passed the policy as the edge read it (UTF-8,
 * where `+AGQ-elete_file` is just that), and the v1 SDK's documented server (`createMcpExpressApp`,
 * whose `express.json()` decodes any `utf-*` charset) read `delete_file` in it and ran the tool
 * the policy denies.
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { after, before, describe, it } from 'node:test'
import { startChild, type Child } from '../helpers/child.js'
import { publicFetch } from '../helpers/public-fetch.js'
import { BURROWD, ROOT, startClient, startService, type Service } from '../helpers/stack.js'
import { bearerApi } from '../helpers/web-client.js'

const run = promisify(execFile)
const SERVER = join(ROOT, 'test/fixtures/express-sdk-server.mjs')

describe('request charsets against the policy (v1 SDK server behind burrow up)', () => {
  let service: Service
  let upstream: Child
  let upstreamPort: number
  let cli: Child
  let tunnel: { id: string; key: string; url: string }

  const ran = async () =>
    (await (await fetch(`http://127.0.0.1:${upstreamPort}/ran`)).json()) as string[]

  const call = (name: string, contentType: string) =>
    publicFetch(tunnel.url, {
      method: 'POST',
      headers: {
        'content-type': contentType,
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
      },
      body: `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"${name}","arguments":{}}}`,
    })

  before(async () => {
    upstream = startChild(process.execPath, [SERVER], { env: { ...process.env, PORT: '0' } })
    upstreamPort = Number((await upstream.waitFor(/listening on (\d+)/))[1])
    service = await startService()
    const { stdout } = await run(
      process.execPath,
      [BURROWD, 'token', 'create', '--account', 'acme', '--name', 'charsets', '--json'],
      { env: service.env },
    )
    const token = (JSON.parse(stdout) as { token: string }).token
    tunnel = await service.tunnel('charsets')
    const put = await bearerApi(`http://127.0.0.1:${service.port}`, token)(
      'PUT',
      `/api/tunnels/${tunnel.id}/policy`,
      { tools: { deny: ['delete_file'] } },
    )
    assert.equal(put.status, 200, JSON.stringify(put.json))
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

  it('baseline: an allowed tool runs, a denied one is refused', async () => {
    const ok = await call('safe_read', 'application/json')
    assert.equal(ok.status, 200, await ok.text())
    const denied = await call('delete_file', 'application/json')
    assert.equal(denied.status, 403, await denied.text())
    assert.deepEqual(await ran(), ['safe_read'])
  })

  for (const contentType of [
    'application/json; charset=utf-7',
    'application/json;charset="UTF-7"',
    'application/json; charset=utf-8; charset=utf-7',
  ]) {
    it(`a body labelled ${contentType} is refused with its id, not run`, async () => {
      const before = (await ran()).length
      const res = await call('+AGQ-elete_file', contentType)
      const text = await res.text()
      assert.equal(res.status, 400, text)
      assert.equal(res.headers.get('x-burrow-error'), 'invalid_request')
      assert.match(text, /charset/)
      assert.match(text, /"id":7/)
      assert.deepEqual((await ran()).slice(before), [])
    })
  }

  it('charset=utf-8 still passes, quoted or not, in any case', async () => {
    for (const contentType of [
      'application/json; charset=utf-8',
      'application/json;charset="UTF-8"',
    ]) {
      const res = await call('safe_read', contentType)
      assert.equal(res.status, 200, `${contentType}: ${await res.text()}`)
    }
  })
})
