/**
 * How often an owner may change who may call a tunnel, against a real burrowd: each change tells
 * every node to check the tunnel's open requests again, so the access mode and allowlist, agent
 * tokens, disconnects and key rotations share one budget a tunnel (and one an account), in the
 * JSON API and the dashboard alike, refused with 429 and Retry-After.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { startService, type Service } from '../helpers/stack.js'
import { signUp, type WebUser } from '../helpers/web-client.js'

describe('access writes are rate limited', { timeout: 120_000 }, () => {
  let service: Service
  let owner: WebUser
  let busy: string
  let quiet: string

  before(async () => {
    service = await startService()
    owner = await signUp(`http://127.0.0.1:${service.port}`, 'limits')
    const made = async (name: string) => {
      const res = await owner.api<{ tunnel: { id: string } }>('POST', '/api/tunnels', { name })
      assert.equal(res.status, 201)
      return res.json.tunnel.id
    }
    busy = await made('busy')
    quiet = await made('quiet')
  })

  after(async () => {
    await service?.close()
  })

  it('refuses the API past 30 writes a minute to one tunnel, on every access route', async () => {
    for (let i = 0; i < 30; i++) {
      const ips = [`10.0.0.${i}`]
      const res = await owner.api('PUT', `/api/tunnels/${busy}/access`, { allow_ips: ips })
      assert.equal(res.status, 200, JSON.stringify(res.json))
    }
    const refused = await fetch(`${owner.base}/api/tunnels/${busy}/access`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ allow_ips: ['192.0.2.1'] }),
    })
    assert.equal(refused.status, 429)
    assert.match(refused.headers.get('retry-after') ?? '', /^[1-9]\d*$/)
    const body = (await refused.json()) as {
      error: { code: string; message: string; retry_after_secs: number }
    }
    assert.equal(body.error.code, 'rate_limited')
    assert.match(body.error.message, /this tunnel's access changed 30 times in the last minute/)
    assert.equal(String(body.error.retry_after_secs), refused.headers.get('retry-after'))
    // Nothing changed.
    const now = await owner.api<{ allow_ips: string[] }>('GET', `/api/tunnels/${busy}/access`)
    assert.deepEqual(now.json.allow_ips, ['10.0.0.29/32'])
    // The other writes of the tunnel share the budget.
    for (const [method, path, payload] of [
      ['POST', `/api/tunnels/${busy}/agent-tokens`, { name: 'ci' }],
      ['DELETE', `/api/tunnels/${busy}/agent-tokens/atk_unknown`, undefined],
      ['DELETE', `/api/tunnels/${busy}/agents/grant_unknown`, undefined],
      ['POST', `/api/tunnels/${busy}/rotate-key`, undefined],
    ] as const) {
      const res = await owner.api<{ error: { code: string } }>(method, path, payload)
      assert.equal(res.status, 429, `${method} ${path}`)
      assert.equal(res.json.error.code, 'rate_limited')
    }
    // Reading is not a write, and another tunnel of the account has its own budget.
    assert.equal((await owner.api('GET', `/api/tunnels/${busy}/agent-tokens`)).status, 200)
    const other = await owner.api('POST', `/api/tunnels/${quiet}/agent-tokens`, { name: 'ci' })
    assert.equal(other.status, 201)
  })

  it('refuses the dashboard from the same budget, with Retry-After', async () => {
    const saved = await owner.form(`/dashboard/tunnels/${busy}/access`, {
      mode: 'token',
      allow_ips: '',
    })
    assert.equal(saved.status, 429)
    assert.match(saved.headers.get('retry-after') ?? '', /^[1-9]\d*$/)
    assert.match(await saved.text(), /This tunnel&#39;s access changed 30 times in the last minute/)
    const rotated = await owner.form(`/dashboard/tunnels/${busy}/rotate-key`, {})
    assert.equal(rotated.status, 429)
    assert.doesNotMatch(await rotated.text(), /mtk_/)
    const access = await owner.api<{ mode: string }>('GET', `/api/tunnels/${busy}/access`)
    assert.equal(access.json.mode, 'oauth')
    // The quiet tunnel still saves.
    const other = await owner.form(`/dashboard/tunnels/${quiet}/access`, {
      mode: 'token',
      allow_ips: '',
    })
    assert.equal(other.status, 303)
  })
})
