/**
 * Accounts, tunnels, tokens, billing meters and webhook endpoints through a real burrowd: the
 * JSON API and the dashboard's forms as a browser sends them, account isolation, CSRF and
 * security headers, key rotation against a running `burrow up`, a downgrade's stopped tunnels
 * at the edge, and a `quota.warning` delivered to a registered endpoint and verified with the
 * `standardwebhooks` package.
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { after, before, describe, it } from 'node:test'
import { Webhook } from 'standardwebhooks'
import {
  startWebhookReceiver,
  webhookHeaders,
  type WebhookReceiver,
} from '../../packages/server/test/helpers/webhook-receiver.js'
import { startChild } from '../helpers/child.js'
import { openSession, postMcp, toolCall, usageSet } from '../helpers/quota-stack.js'
import { BURROW, BURROWD, ROOT, startClient, startService, type Service } from '../helpers/stack.js'
import { signUp, type WebUser } from '../helpers/web-client.js'

const run = promisify(execFile)
const HELLO = join(ROOT, 'examples/hello-server.mjs')

interface TunnelJson {
  id: string
  name: string | null
  subdomain: string
  mcp_url: string
  serving: boolean
  online: boolean
}

async function until(check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

describe('accounts and the JSON API on a real burrowd', { timeout: 180_000 }, () => {
  let service: Service
  let base: string
  let alpha: WebUser
  let bravo: WebUser

  before(async () => {
    service = await startService({
      BURROW_WEBHOOKS_ALLOW_PRIVATE: '1',
      BURROW_METER_SNAPSHOT_SECS: '1',
    })
    base = `http://127.0.0.1:${service.port}`
    alpha = await signUp(base, 'alpha')
    bravo = await signUp(base, 'bravo')
  })
  after(async () => service?.close())

  it('creates, lists and renames tunnels, and refuses the third on Free with 402', async () => {
    const one = await alpha.api<{ tunnel: TunnelJson; key: string }>('POST', '/api/tunnels', {
      name: 'docs',
    })
    assert.equal(one.status, 201)
    assert.match(one.json.key, /^mtk_/)
    assert.match(one.json.tunnel.mcp_url, /^http:\/\/docs--alpha\.localhost:\d+\/mcp$/)
    assert.equal((await alpha.api('POST', '/api/tunnels', { subdomain: 'wiki' })).status, 201)
    const third = await alpha.api('POST', '/api/tunnels', { name: 'third' })
    assert.equal(third.status, 402)
    assert.equal(third.json.error?.code, 'plan_limit')
    assert.match(third.json.error?.message ?? '', /Free plan allows 2 tunnels/)
    assert.match(third.json.error?.message ?? '', /upgrade/i)

    const renamed = await alpha.api<TunnelJson>('PATCH', `/api/tunnels/${one.json.tunnel.id}`, {
      name: 'Docs server',
    })
    assert.equal(renamed.json.name, 'Docs server')
    assert.equal(renamed.json.subdomain, 'docs', 'the URL does not change')
    const list = await alpha.api<{ tunnels: TunnelJson[] }>('GET', '/api/tunnels')
    assert.deepEqual(
      list.json.tunnels.map((t) => t.subdomain),
      ['docs', 'wiki'],
    )
    const bad = await bravo.api('POST', '/api/tunnels', { subdomain: 'Not A Label' })
    assert.equal(bad.status, 400)
    assert.match(bad.json.error?.message ?? '', /subdomain/)
  })

  it("never lets one account read or change another's tunnels, tokens or endpoints", async () => {
    const { json } = await alpha.api<{ tunnels: TunnelJson[] }>('GET', '/api/tunnels')
    const target = json.tunnels[0]!
    for (const [method, path, body] of [
      ['GET', `/api/tunnels/${target.id}`, undefined],
      ['PATCH', `/api/tunnels/${target.id}`, { name: 'pwned' }],
      ['POST', `/api/tunnels/${target.id}/rotate-key`, undefined],
      ['DELETE', `/api/tunnels/${target.id}`, undefined],
    ] as const) {
      const res = await bravo.api(method, path, body)
      assert.equal(res.status, 404, `${method} ${path}`)
    }
    const serving = await bravo.api('PUT', '/api/tunnels/serving', { tunnel_ids: [target.id] })
    assert.equal(serving.status, 400)
    assert.deepEqual((await bravo.api<{ tunnels: [] }>('GET', '/api/tunnels')).json.tunnels, [])
    assert.equal((await bravo.page(`/dashboard/tunnels/${target.id}`)).status, 404)
    assert.equal(
      (await bravo.form(`/dashboard/tunnels/${target.id}/delete`, {})).status,
      404,
      'the dashboard form refuses too',
    )

    const tokens = await alpha.api<{ tokens: { id: string }[] }>('GET', '/api/tokens')
    const tokenId = tokens.json.tokens[0]!.id
    assert.equal((await bravo.api('DELETE', `/api/tokens/${tokenId}`)).status, 404)

    const endpoint = await alpha.api<{ id: string; secret: string }>('POST', '/api/webhooks', {
      url: 'http://127.0.0.1:9/hooks',
    })
    assert.equal(endpoint.status, 201)
    assert.match(endpoint.json.secret, /^whsec_/)
    for (const [method, path] of [
      ['GET', `/api/webhooks/${endpoint.json.id}`],
      ['GET', `/api/webhooks/${endpoint.json.id}/deliveries`],
      ['POST', `/api/webhooks/${endpoint.json.id}/enable`],
      ['DELETE', `/api/webhooks/${endpoint.json.id}`],
    ] as const) {
      assert.equal((await bravo.api(method, path)).status, 404, `${method} ${path}`)
    }
    assert.equal((await alpha.api('DELETE', `/api/webhooks/${endpoint.json.id}`)).status, 204)

    // Nothing changed on alpha's side.
    const after = await alpha.api<TunnelJson>('GET', `/api/tunnels/${target.id}`)
    assert.equal(after.json.name, target.name)
  })

  it('asks for credentials, the CSRF token and our own origin', async () => {
    assert.equal((await fetch(`${base}/api/tunnels`)).status, 401)
    const revoked = await fetch(`${base}/api/tunnels`, {
      headers: { authorization: 'Bearer btk_not-a-token' },
    })
    assert.equal(revoked.status, 401)
    const noCsrf = await alpha.form('/dashboard/tunnels', { name: 'x' }, 'wrong-token')
    assert.equal(noCsrf.status, 403)
    const sessionJson = await fetch(`${base}/api/tokens`, {
      method: 'POST',
      headers: { cookie: alpha.cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'no csrf header' }),
    })
    assert.equal(sessionJson.status, 403)
    const foreign = await fetch(`${base}/api/tokens`, {
      method: 'POST',
      headers: {
        cookie: alpha.cookie,
        'content-type': 'application/json',
        'x-csrf-token': alpha.csrf,
        origin: 'https://evil.example',
      },
      body: JSON.stringify({ name: 'cross-site' }),
    })
    assert.equal(foreign.status, 403)
    const ok = await fetch(`${base}/api/tokens`, {
      method: 'POST',
      headers: {
        cookie: alpha.cookie,
        'content-type': 'application/json',
        'x-csrf-token': alpha.csrf,
      },
      body: JSON.stringify({ name: 'from the dashboard' }),
    })
    assert.equal(ok.status, 201)
    const malformed = await alpha.api('POST', '/api/tokens', undefined)
    assert.equal(malformed.status, 400, 'a token needs a name')
    const notJson = await fetch(`${base}/api/tunnels`, {
      method: 'POST',
      headers: { authorization: `Bearer ${alpha.token}`, 'content-type': 'application/json' },
      body: '{"name":',
    })
    assert.equal(notJson.status, 400)
    assert.equal(((await notJson.json()) as { error: { code: string } }).error.code, 'invalid_json')
  })

  it('escapes user text in pages and sends security headers', async () => {
    const hostile = '<script>document.title="pwned"</script>'
    const { json } = await alpha.api<{ tunnels: TunnelJson[] }>('GET', '/api/tunnels')
    await alpha.api('PATCH', `/api/tunnels/${json.tunnels[1]!.id}`, { name: hostile })
    for (const path of ['/dashboard', `/dashboard/tunnels/${json.tunnels[1]!.id}`]) {
      const res = await alpha.page(path)
      const page = await res.text()
      assert.ok(!page.includes(hostile), `${path} contains the raw name`)
      assert.ok(page.includes('&lt;script&gt;document.title=&quot;pwned&quot;&lt;/script&gt;'))
      const csp = res.headers.get('content-security-policy') ?? ''
      assert.match(csp, /frame-ancestors 'none'/)
      assert.match(csp, /script-src 'self'/)
      assert.doesNotMatch(csp, /unsafe-inline/)
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff')
      assert.equal(res.headers.get('x-frame-options'), 'DENY')
    }
    const pricing = await fetch(`${base}/pricing`)
    assert.match(pricing.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/)
    const signup = await fetch(`${base}/signup`)
    assert.match(signup.headers.get('set-cookie') ?? '', /HttpOnly; SameSite=Lax/)
  })

  it('rotating a key cuts off the running client with "authentication failed"', async () => {
    const carol = await signUp(base, 'carol')
    const made = await carol.api<{ tunnel: TunnelJson; key: string }>('POST', '/api/tunnels', {
      name: 'rot',
    })
    const client = await startClient(service, made.json.key, [
      '--stdio',
      `${process.execPath} ${HELLO}`,
    ])
    await until(async () => {
      const t = await carol.api<TunnelJson>('GET', `/api/tunnels/${made.json.tunnel.id}`)
      return t.json.online
    })
    const rotated = await carol.api<{ key: string }>(
      'POST',
      `/api/tunnels/${made.json.tunnel.id}/rotate-key`,
    )
    assert.equal(rotated.status, 200)
    assert.notEqual(rotated.json.key, made.json.key)
    assert.equal(await client.exited, 3)
    assert.match(client.stderr + client.stdout, /authentication failed/)
    const again = startChild(
      process.execPath,
      [BURROW, '--broker', service.broker, 'up', '--stdio', `${process.execPath} ${HELLO}`],
      {
        env: { ...process.env, BURROW_API_KEY: rotated.json.key },
      },
    )
    try {
      await again.waitFor(/Tunnel online/)
    } finally {
      await again.stop()
    }
  })

  it('stops tunnels beyond the plan at the edge until the owner chooses which serve', async () => {
    const dave = await signUp(base, 'dave')
    const ids: string[] = []
    for (const name of ['one', 'two']) {
      ids.push(
        (await dave.api<{ tunnel: TunnelJson }>('POST', '/api/tunnels', { name })).json.tunnel.id,
      )
    }
    // The operator may create beyond the plan, as after a downgrade: the newest stops serving.
    const { stdout } = await run(
      process.execPath,
      [
        BURROWD,
        'tunnel',
        'create',
        '--account',
        'dave',
        '--name',
        'three',
        '--access',
        'public',
        '--json',
      ],
      { env: service.env },
    )
    const three = JSON.parse(stdout) as { id: string; public_url: string }
    const list = await dave.api<{ tunnels: TunnelJson[] }>('GET', '/api/tunnels')
    assert.deepEqual(
      list.json.tunnels.map((t) => [t.name, t.serving]),
      [
        ['one', true],
        ['two', true],
        ['three', false],
      ],
    )
    const stopped = await postMcp(`${three.public_url}/mcp`, toolCall(7, 'hello'))
    assert.equal(stopped.status, 402)
    assert.equal(stopped.headers.get('x-burrow-error'), 'plan_limit')
    assert.deepEqual(
      (stopped.json as { id: number; error: { data: { policy_code: string } } }).id,
      7,
    )
    assert.equal(
      (stopped.json as { error: { data: { policy_code: string } } }).error.data.policy_code,
      'plan_limit',
    )
    const dashboard = await (await dave.page('/dashboard')).text()
    assert.match(dashboard, /serves 2 of your 3 tunnels/)

    const chosen = await dave.api('PUT', '/api/tunnels/serving', { tunnel_ids: [three.id, ids[0]] })
    assert.equal(chosen.status, 200)
    const served = await postMcp(`${three.public_url}/mcp`, toolCall(8, 'hello'))
    assert.equal(served.status, 503, 'now serving; no client is connected')
    assert.equal(served.headers.get('x-burrow-error'), 'tunnel_offline')
    const tooMany = await dave.api('PUT', '/api/tunnels/serving', {
      tunnel_ids: ids.concat(three.id),
    })
    assert.equal(tooMany.status, 400)
  })

  it('sends quota.warning once, signed, and shows the meters from the snapshot', async () => {
    const erin = await signUp(base, 'erin')
    const receiver: WebhookReceiver = await startWebhookReceiver()
    try {
      const endpoint = await erin.api<{ id: string; secret: string }>('POST', '/api/webhooks', {
        url: receiver.url,
      })
      assert.equal(endpoint.status, 201)
      const made = await erin.api<{ tunnel: TunnelJson; key: string }>('POST', '/api/tunnels', {
        name: 'warned',
        access: 'public',
      })
      const client = await startClient(service, made.json.key, [
        '--stdio',
        `${process.execPath} ${HELLO}`,
      ])
      try {
        // 80% of Free's 100,000 calls is 80,000: the next two calls cross it once.
        await usageSet(service, made.json.tunnel.id, ['--tool-calls', '79999'])
        const session = await openSession(made.json.tunnel.mcp_url)
        for (const id of [1, 2]) {
          const answer = await postMcp(
            made.json.tunnel.mcp_url,
            toolCall(id, 'hello', { name: 'x' }),
            session,
          )
          assert.equal(answer.status, 200, answer.text)
        }
        await receiver.waitFor(1)
        await new Promise((resolve) => setTimeout(resolve, 500))
        assert.equal(receiver.received.length, 1, 'exactly one warning')
        const delivery = receiver.received[0]!
        const verified = new Webhook(endpoint.json.secret).verify(
          delivery.body,
          webhookHeaders(delivery),
        ) as {
          type: string
          data: { metric: string; limit: number; used: number; tunnel: { id: string } }
        }
        assert.equal(verified.type, 'quota.warning')
        assert.equal(verified.data.metric, 'tool_calls')
        assert.equal(verified.data.limit, 100_000)
        assert.equal(verified.data.used, 80_000)
        assert.equal(verified.data.tunnel.id, made.json.tunnel.id)

        await until(async () => {
          const billing = await erin.api<{
            meters: { snapshot_taken_at: string | null; tool_calls: { used: number } }
          }>('GET', '/api/billing')
          return billing.json.meters.tool_calls.used === 80_001
        })
        const billing = await erin.api<{
          plan: string
          state: string
          meters: {
            snapshot_taken_at: string
            resets_at: string
            tool_calls: { limit_per_tunnel: number }
            data_transfer: { limit_bytes_per_tunnel: number; used_bytes: number }
            tunnel_allowance: { used: number; limit: number }
          }
        }>('GET', '/api/billing')
        assert.equal(billing.json.plan, 'free')
        assert.equal(billing.json.state, 'free')
        assert.ok(Date.parse(billing.json.meters.snapshot_taken_at) > 0)
        assert.match(billing.json.meters.resets_at, /-01T00:00:00\.000Z$/)
        assert.equal(billing.json.meters.tool_calls.limit_per_tunnel, 100_000)
        assert.equal(billing.json.meters.data_transfer.limit_bytes_per_tunnel, 5_000_000_000)
        assert.ok(billing.json.meters.data_transfer.used_bytes > 0)
        assert.deepEqual(billing.json.meters.tunnel_allowance, { used: 1, limit: 2 })
        const page = await (await erin.page(`/dashboard/webhooks/${endpoint.json.id}`)).text()
        assert.match(page, /data-status="delivered"/)
      } finally {
        await client.stop()
      }
    } finally {
      await receiver.close()
    }
  })

  // Last: the sign-in limit counts per address, and every test here comes from 127.0.0.1.
  it('signs in and out, and rate-limits wrong passwords', async () => {
    const signIn = async (password: string, address = '') => {
      const page = await fetch(`${base}/signin`)
      const cookie = (page.headers.get('set-cookie') ?? '').split(';', 1)[0] ?? ''
      const token = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? ''
      return fetch(`${base}/signin`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
        body: new URLSearchParams({ _csrf: token, email: `bravo${address}@example.com`, password }),
      })
    }
    const ok = await signIn('correct horse battery')
    assert.equal(ok.status, 303)
    assert.equal(ok.headers.get('location'), '/dashboard')
    const session = (ok.headers.get('set-cookie') ?? '').split(';', 1)[0] ?? ''
    const dashboard = await fetch(`${base}/dashboard`, { headers: { cookie: session } })
    assert.equal(dashboard.status, 200)
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await dashboard.text())?.[1] ?? ''
    const out = await fetch(`${base}/signout`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: session },
      body: new URLSearchParams({ _csrf: csrf }),
    })
    assert.equal(out.status, 303)
    const after = await fetch(`${base}/dashboard`, {
      headers: { cookie: session },
      redirect: 'manual',
    })
    assert.equal(after.status, 302, 'the session ended')
    assert.equal(after.headers.get('location'), '/signin')

    const wrong = await signIn('not the password')
    assert.equal(wrong.status, 401)
    assert.match(await wrong.text(), /Wrong email or password/)
    const statuses: number[] = []
    for (let i = 0; i < 10; i++) statuses.push((await signIn('still wrong')).status)
    assert.ok(statuses.includes(429), `no 429 among ${statuses.join(', ')}`)
    const limited = await signIn('correct horse battery')
    assert.equal(limited.status, 429, 'the limit holds for the right password too')
  })
})
