/**
 * Two editors of one tunnel's policy, against a real burrowd: a Policy tab opened before another
 * tab turned zero-knowledge mode on, saved afterwards, is refused (409, the draft kept, the mode
 * still on) rather than turning the mode off unseen; the API does the same with `If-Match` and
 * the policy's `ETag` (412). Found by a hostile review: each save replaced the document whole.
 * The tabs are driven in a real browser (headless Chromium through playwright-core).
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Page } from 'playwright-core'
import { hasChromium } from '../helpers/browser.js'
import {
  startDashboardInBrowser,
  type DashboardInBrowser,
} from '../helpers/dashboard-in-browser.js'
import { signUp, type WebUser } from '../helpers/web-client.js'

type PolicyAnswer = {
  version: number
  policy: { zero_knowledge: boolean; tools: { deny: string[] } }
}

describe('concurrent policy edits', { skip: !hasChromium, timeout: 180_000 }, () => {
  let dashboard: DashboardInBrowser
  let user: WebUser
  let base: string
  let tunnel: string
  let second: Page

  before(async () => {
    dashboard = await startDashboardInBrowser({ env: { BURROW_LOG: 'info' } })
    base = dashboard.base
    user = await signUp(base, 'editors')
    const made = await user.api<{ tunnel: { id: string } }>('POST', '/api/tunnels', {
      name: 'shared',
    })
    tunnel = made.json.tunnel.id
    await dashboard.useSession(user.cookie)
    second = await dashboard.page.context().newPage()
  })

  after(async () => {
    await dashboard?.close()
  })

  const current = () => user.api<PolicyAnswer>('GET', `/api/tunnels/${tunnel}/policy`)

  it('refuses a save from a tab older than the policy, keeping the draft', async () => {
    const first = dashboard.page
    const url = `${base}/dashboard/tunnels/${tunnel}/policy`
    await first.goto(url)
    await second.goto(url)
    // The first tab turns zero-knowledge mode on.
    await first.fill('#policy', JSON.stringify({ zero_knowledge: true }))
    await Promise.all([
      first.waitForURL(/notice=policy/),
      first.click('#policy-form button[type=submit]'),
    ])
    assert.equal((await current()).json.policy.zero_knowledge, true)
    // The second, still showing version 0, adds a deny rule to what it shows and saves.
    const shown = JSON.parse(await second.inputValue('#policy')) as PolicyAnswer['policy']
    assert.equal(shown.zero_knowledge, false)
    shown.tools.deny = ['drop_*']
    await second.fill('#policy', JSON.stringify(shown, null, 2))
    const [answer] = await Promise.all([
      second.waitForResponse((r) => r.request().method() === 'POST'),
      second.click('#policy-form button[type=submit]'),
    ])
    assert.equal(answer.status(), 409)
    await second.waitForSelector('.notice.error')
    assert.match(
      (await second.textContent('.notice.error')) ?? '',
      /changed since this page showed version 0: it is now at version 1\. Nothing was changed/,
    )
    assert.match(await second.inputValue('#policy'), /drop_\*/, 'the draft is kept')
    const after = (await current()).json
    assert.equal(after.version, 1)
    assert.equal(after.policy.zero_knowledge, true, 'zero-knowledge mode stays on')
    assert.deepEqual(after.policy.tools.deny, [])
    // Told of the change, the owner may still save the draft: it then replaces version 1.
    await Promise.all([
      second.waitForURL(/notice=policy/),
      second.click('#policy-form button[type=submit]'),
    ])
    const replaced = (await current()).json
    assert.equal(replaced.version, 2)
    assert.deepEqual(replaced.policy.tools.deny, ['drop_*'])
  })

  it('honours If-Match in the API, and gives the version as the ETag', async () => {
    const put = (body: unknown, ifMatch?: string) =>
      fetch(`${base}/api/tunnels/${tunnel}/policy`, {
        method: 'PUT',
        headers: {
          authorization: `Bearer ${user.token}`,
          'content-type': 'application/json',
          ...(ifMatch !== undefined ? { 'if-match': ifMatch } : {}),
        },
        body: JSON.stringify(body),
      })
    const got = await fetch(`${base}/api/tunnels/${tunnel}/policy`, {
      headers: { authorization: `Bearer ${user.token}` },
    })
    const tag = got.headers.get('etag')
    const { version } = (await got.json()) as PolicyAnswer
    assert.equal(tag, `"${version}"`)
    const on = await put({ zero_knowledge: true }, tag)
    assert.equal(on.status, 200)
    assert.equal(on.headers.get('etag'), `"${version + 1}"`)
    const stale = await put({ zero_knowledge: false }, tag)
    assert.equal(stale.status, 412)
    assert.equal(stale.headers.get('etag'), `"${version + 1}"`)
    const body = (await stale.json()) as { error: { code: string; version: number } }
    assert.equal(body.error.code, 'precondition_failed')
    assert.equal(body.error.version, version + 1)
    assert.equal((await current()).json.policy.zero_knowledge, true)
    assert.equal((await put({}, 'version 3')).status, 400)
    assert.equal((await current()).json.version, version + 1)
  })
})
