/**
 * Changing the password on the account page costs two password hashes (the current one checked,
 * the new one made): like a sign-in, each try spends from the client address's attempts. Before,
 * an owner of any account could change its password (right current password, so never a failure)
 * as fast as the node answered, and filled the lane of password work that browsers known to
 * their accounts wait in, holding up everyone's sign-ins.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { SIGN_IN_ATTEMPTS_PER_MINUTE } from '../../packages/server/src/app/dashboard/sign-in-guard.js'
import { startService, type Service } from '../helpers/stack.js'
import { signUp, type WebUser } from '../helpers/web-client.js'

const PASSWORDS = ['correct horse battery', 'purple walrus teaspoon']

describe('changing the password from the account page', { timeout: 60_000 }, () => {
  let service: Service
  let user: WebUser

  before(async () => {
    service = await startService({})
    user = await signUp(`http://127.0.0.1:${service.port}`, 'limits', PASSWORDS[0])
  })

  after(async () => {
    await service?.close()
  })

  it("spends the client address's sign-in attempts, even with the right password", async () => {
    const statuses: number[] = []
    // A change gives the browser a new session (and ends the one it was made in).
    let cookie = user.cookie
    for (let i = 0; i < SIGN_IN_ATTEMPTS_PER_MINUTE + 2; i++) {
      const page = await fetch(`${user.base}/dashboard/account`, { headers: { cookie } })
      const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? ''
      const res = await fetch(`${user.base}/dashboard/account/password`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
        body: new URLSearchParams({
          _csrf: csrf,
          current: PASSWORDS[i % 2]!,
          password: PASSWORDS[(i + 1) % 2]!,
        }),
      })
      const renewed = res.headers.getSetCookie().find((c) => c.startsWith('burrow_session='))
      if (renewed) cookie = renewed.split(';', 1)[0]!
      statuses.push(res.status)
      const text = await res.text()
      if (res.status === 429) assert.match(text, /Too many attempts/)
    }
    assert.equal(statuses[0], 303, 'the first change is made')
    assert.equal(
      statuses.at(-1),
      429,
      `refused once the address is out of attempts: ${statuses.join(', ')}`,
    )
  })
})
