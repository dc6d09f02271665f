/**
 * A service host of its own (`BURROW_SERVICE_HOST`), as docs/security.md advises in production:
 * the dashboard, the API, the OAuth authorization server and the broker answer on that host and
 * name it in what they print, tunnels stay at `<sub>--<slug>.<zone>`, a cookie a local server
 * sets reaches no other host, and the service host can never be claimed as a custom domain.
 * Real burrowd and `burrow up` processes.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Child } from '../helpers/child.js'
import { publicFetch } from '../helpers/public-fetch.js'
import { startClient, startService, type Service } from '../helpers/stack.js'
import { signUp, type WebUser } from '../helpers/web-client.js'
import { startCountingServer, type CountingServer } from '../helpers/quota-stack.js'

const SERVICE_HOST = 'dashboard.burrow.test'

describe('a service host of its own', { timeout: 120_000 }, () => {
  let service: Service
  let server: CountingServer
  let user: WebUser
  let client: Child | undefined
  let base: string

  before(async () => {
    server = await startCountingServer()
    service = await startService({ BURROW_SERVICE_HOST: SERVICE_HOST })
    base = `http://${SERVICE_HOST}:${service.port}`
    user = await signUp(`http://127.0.0.1:${service.port}`, 'hosted')
  })

  after(async () => {
    await client?.stop()
    await server?.child.stop()
    await service?.close()
  })

  it('serves the dashboard there and names it as the broker and OAuth issuer', async () => {
    const landing = await publicFetch(`${base}/`)
    assert.equal(landing.status, 200)
    const meta = await publicFetch(`${base}/.well-known/oauth-authorization-server`)
    assert.equal(meta.status, 200)
    const issuer = ((await meta.json()) as { issuer: string }).issuer
    assert.equal(issuer, base)

    const created = await user.form('/dashboard/tunnels', { name: 'docs' })
    assert.equal(created.status, 201)
    const page = await created.text()
    const command = /<pre id="up-command">([^<]+)<\/pre>/.exec(page)?.[1] ?? ''
    assert.match(command, new RegExp(`burrow --broker ws://${SERVICE_HOST}:${service.port} up `))
    const key = /BURROW_API_KEY=(mtk_\S+)/.exec(command)?.[1]
    assert.ok(key)
    const url = /<code id="public-url">([^<]+)<\/code>/.exec(page)?.[1] ?? ''
    assert.match(url, new RegExp(`^http://docs--hosted\\.localhost:${service.port}/mcp$`))

    // A tunnel (oauth by default) points agents at the service host to sign in.
    client = await startClient(service, key, ['--upstream', server.url])
    const refused = await publicFetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    })
    assert.equal(refused.status, 401)
    const resource = await publicFetch(
      url.replace(/\/mcp$/, '/.well-known/oauth-protected-resource/mcp'),
    )
    const prm = (await resource.json()) as { authorization_servers: string[] }
    assert.deepEqual(prm.authorization_servers, [base])
  })

  it('refuses the service host as a custom domain', async () => {
    const list = await user.api<{ tunnels: { id: string }[] }>('GET', '/api/tunnels')
    // Custom domains need Pro: the name is refused before the plan would be.
    const res = await user.api<{ error: { message: string } }>(
      'POST',
      `/api/tunnels/${list.json.tunnels[0]!.id}/domains`,
      { domain: SERVICE_HOST },
    )
    assert.equal(res.status, 400, JSON.stringify(res.json))
    assert.match(res.json.error.message, /service's own host/)
  })
})
