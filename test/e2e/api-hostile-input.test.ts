/**
 * The JSON API (and the dashboard forms doing the same) given what a hostile owner sends: text
 * holding U+0000 where it is looked up (call filters, a tool or domain named in the path, the
 * tunnels to keep serving), JSON nested deep, writes to a tunnel racing its delete, and
 * checkouts in a loop. None gets a 500, and the loop is held to the account's budget of requests to the payment provider. Real burrowd, on SQLite and on PostgreSQL when TEST_DATABASE_URL is set: PostgreSQL
 * refuses U+0000 in text, and runs requests at once, so a delete commits between a request's
 * ownership check and its insert.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import {
  testBackends,
  type TestDatabase,
} from '../../packages/server/test/helpers/test-databases.js'
import { PROVIDER_REQUESTS_PER_HOUR } from '../../packages/server/src/app/billing-port.js'
import { startService, type Service } from '../helpers/stack.js'
import { signUp, type WebUser } from '../helpers/web-client.js'

for (const backend of testBackends()) {
  describe(`the API given hostile input, on ${backend.name}`, { timeout: 120_000 }, () => {
    let service: Service | undefined
    let database: TestDatabase | undefined
    let owner: WebUser
    let tunnelId: string

    before(async () => {
      database = await backend.create()
      service = await startService(
        database.config.databaseUrl ? { BURROW_DATABASE_URL: database.config.databaseUrl } : {},
      )
      owner = await signUp(`http://127.0.0.1:${service.port}`, 'hostile')
      const made = await owner.api<{ tunnel: { id: string } }>('POST', '/api/tunnels', {
        name: 'docs',
      })
      assert.equal(made.status, 201)
      tunnelId = made.json.tunnel.id
    })
    after(async () => {
      await service?.close()
      await database?.drop()
    })

    it('answers U+0000 in what it looks up, never with 500', async () => {
      const t = `/api/tunnels/${tunnelId}`
      const lookups: [string, string, unknown?][] = [
        ['GET', `${t}/calls?tool=a%00b`],
        ['GET', `${t}/calls?method=tools%2Fcall%00`],
        ['POST', `${t}/tools/a%00/approve`, {}],
        ['POST', `${t}/tools/a%00/reject`, {}],
        ['POST', `${t}/domains/mcp%00.example.com/verify`],
        ['DELETE', `${t}/domains/mcp%00.example.com`],
        ['PUT', '/api/tunnels/serving', { tunnel_ids: [tunnelId, 'tun_\u0000'] }],
      ]
      for (const [method, path, body] of lookups) {
        const res = await owner.api(method, path, body)
        assert.ok(res.status < 500, `${method} ${path}: ${res.status}`)
      }
      // A filter finds what the history stored for such a name (U+0000 as U+FFFD): nothing here.
      const calls = await owner.api<{ calls: unknown[] }>('GET', `${t}/calls?tool=a%00b`)
      assert.equal(calls.status, 200)
      assert.deepEqual(calls.json.calls, [])
      // The dashboard's forms look the same things up.
      const decide = await owner.form(`/dashboard/tunnels/${tunnelId}/tools/decide`, {
        tool: JSON.stringify('a\u0000'),
        status: 'new',
        decision: 'approved',
      })
      assert.equal(decide.status, 404)
      // A form that does not name its tool as the Tools tab does (JSON text and the status seen).
      for (const fields of [
        { name: 'a', decision: 'approved' },
        { tool: 'a', status: 'new', decision: 'approved' },
        { tool: '["a"]', status: 'new', decision: 'approved' },
        { tool: '"a"', status: 'gone', decision: 'approved' },
        { tool: '"a"', decision: 'approved' },
      ] as Record<string, string>[]) {
        const res = await owner.form(`/dashboard/tunnels/${tunnelId}/tools/decide`, fields)
        assert.equal(res.status, 400, JSON.stringify(fields))
      }
      const traffic = await owner.page(`/dashboard/tunnels/${tunnelId}/traffic?tool=%00`)
      assert.equal(traffic.status, 200)
      const serving = await owner.form('/dashboard/tunnels/serving', { serving: 'tun_\u0000' })
      assert.ok(serving.status < 500, `serving: ${serving.status}`)
    })

    it('refuses JSON nested deep in any field with 400', async () => {
      const deep = '['.repeat(30_000) + ']'.repeat(30_000)
      const t = `/api/tunnels/${tunnelId}`
      const bodies: [string, string, string][] = [
        ['PUT', `${t}/access`, `{"allow_ips":${deep}}`],
        ['POST', '/api/tunnels', `{"allow_ips":${deep}}`],
        ['PUT', `${t}/policy`, `{"tools":{"deny":${deep}}}`],
        ['PUT', '/api/tunnels/serving', `{"tunnel_ids":${deep}}`],
        ['POST', '/api/tokens', `{"name":${deep}}`],
        ['POST', `${t}/agent-tokens`, `{"name":${deep}}`],
        ['POST', '/api/webhooks', `{"url":"https://example.com/","events":${deep}}`],
      ]
      for (const [method, path, body] of bodies) {
        const res = await fetch(`${owner.base}${path}`, {
          method,
          headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
          body,
        })
        assert.equal(res.status, 400, `${method} ${path}: ${await res.text()}`)
      }
      // What the tunnel allows did not change.
      const access = await owner.api<{ allow_ips: string[] }>('GET', `${t}/access`)
      assert.deepEqual(access.json.allow_ips, [])
    })

    it('holds an account to PROVIDER_REQUESTS_PER_HOUR checkouts an hour', async () => {
      // Each is a transaction at the payment provider, whose API limit the service shares.
      const looper = await signUp(`http://127.0.0.1:${service!.port}`, 'looper')
      const statuses: number[] = []
      for (let i = 0; i < PROVIDER_REQUESTS_PER_HOUR + 3; i++) {
        const res = await looper.api('POST', '/api/billing/checkout', { plan: 'pro' })
        statuses.push(res.status)
      }
      assert.deepEqual(
        statuses.slice(0, PROVIDER_REQUESTS_PER_HOUR),
        Array(PROVIDER_REQUESTS_PER_HOUR).fill(201),
      )
      assert.deepEqual(statuses.slice(PROVIDER_REQUESTS_PER_HOUR), [429, 429, 429])
      const refused = await looper.api<{ error: { code: string; retry_after_secs: number } }>(
        'POST',
        '/api/billing/checkout',
        { plan: 'scale' },
      )
      assert.equal(refused.json.error.code, 'rate_limited')
      assert.ok(refused.json.error.retry_after_secs > 0)
      // The dashboard's form asks the same provider, under the same budget.
      const form = await looper.form('/dashboard/billing/checkout', {
        plan: 'pro',
        cycle: 'monthly',
      })
      assert.equal(form.status, 429)
      // Previews (a GET another site can make the browser open) count apart, and spend none of it.
      const other = await signUp(`http://127.0.0.1:${service!.port}`, 'previewed')
      for (let i = 0; i < PROVIDER_REQUESTS_PER_HOUR + 1; i++) {
        await other.page('/api/billing/plan-change?plan=pro')
      }
      assert.equal((await other.api('POST', '/api/billing/checkout', { plan: 'pro' })).status, 201)
      // Another account's budget is its own.
      assert.equal((await owner.api('POST', '/api/billing/checkout', { plan: 'pro' })).status, 201)
    })

    it('answers writes racing the tunnel’s delete with 404, never 500', async () => {
      const seen: string[] = []
      for (let i = 0; i < 20; i++) {
        const made = await owner.api<{ tunnel: { id: string } }>('POST', '/api/tunnels', {
          name: `race ${i}`,
        })
        assert.equal(made.status, 201)
        const t = `/api/tunnels/${made.json.tunnel.id}`
        const answers = await Promise.all([
          owner.api('PUT', `${t}/policy`, { tools: { deny: ['x'] } }),
          owner.api('POST', `${t}/agent-tokens`, { name: 'agent' }),
          owner.api('PUT', `${t}/access`, { mode: 'token' }),
          owner.api('POST', `${t}/rotate-key`),
          owner.api('DELETE', t),
        ])
        for (const a of answers) seen.push(String(a.status))
      }
      assert.ok(!seen.some((s) => s.startsWith('5')), `answers: ${seen.join(' ')}`)
    })
  })
}
