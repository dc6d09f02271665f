/**
 * How often an owner may change a tunnel's policy in the dashboard, against a real burrowd: past
 * the limit the policy form says so with 429 and Retry-After, as the API does, keeps the draft,
 * and changes nothing. Before, the dashboard answered 400, as for a document with a fault.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { startService, type Service } from '../helpers/stack.js'
import { signUp, type WebUser } from '../helpers/web-client.js'

describe('policy writes in the dashboard are rate limited', { timeout: 120_000 }, () => {
  let service: Service
  let owner: WebUser
  let tunnel: string

  before(async () => {
    service = await startService()
    owner = await signUp(`http://127.0.0.1:${service.port}`, 'policies')
    const made = await owner.api<{ tunnel: { id: string } }>('POST', '/api/tunnels', {
      name: 'busy',
    })
    assert.equal(made.status, 201)
    tunnel = made.json.tunnel.id
  })

  after(async () => {
    await service?.close()
  })

  it('answers the 31st save in a minute 429 with Retry-After, and keeps the 30th', async () => {
    const save = (n: number) =>
      owner.form(`/dashboard/tunnels/${tunnel}/policy`, {
        policy: JSON.stringify({ tools: { deny: [`tool_${n}`] } }),
      })
    for (let n = 1; n <= 30; n++) assert.equal((await save(n)).status, 303, `save ${n}`)
    const refused = await save(31)
    assert.equal(refused.status, 429)
    assert.match(refused.headers.get('retry-after') ?? '', /^[1-9]\d*$/)
    const page = await refused.text()
    assert.match(page, /changed 30 times in the last minute; try again in \d+ s/)
    assert.match(page, /tool_31/, 'the draft is kept in the form')
    const policy = await owner.api<{ policy: { tools: { deny: string[] } } }>(
      'GET',
      `/api/tunnels/${tunnel}/policy`,
    )
    assert.equal(policy.status, 200)
    assert.deepEqual(policy.json.policy.tools.deny, ['tool_30'])
    // A document with a fault is still a 400.
    const faulty = await owner.form(`/dashboard/tunnels/${tunnel}/policy`, { policy: '{' })
    assert.equal(faulty.status, 400)
  })
})
