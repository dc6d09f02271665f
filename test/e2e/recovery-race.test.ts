/**
 * An earlier holder racing the address's owner: someone signed up with an address they do not
 * own and keeps making API tokens (each with the last, deleting the oldest) while the owner
 * resets the password from the mailed link. Once the reset has answered, none of the tokens the
 * earlier holder made works, however the requests interleaved. Real burrowd, SMTP inbox, on
 * SQLite and on PostgreSQL when TEST_DATABASE_URL is set (where requests run at once).
 */
import assert from 'node:assert/strict'
import { after, describe, it } from 'node:test'
import { heldRequest } from '../helpers/raw-http.js'
import {
  testBackends,
  type TestDatabase,
} from '../../packages/server/test/helpers/test-databases.js'
import { startSmtpInbox, type SmtpInbox } from '../helpers/smtp-inbox.js'
import { startService, type Service } from '../helpers/stack.js'
import { bearerApi, signUp } from '../helpers/web-client.js'

/** A form post as a browser makes it: the form's cookie and token first. */
async function postForm(
  base: string,
  path: string,
  fields: Record<string, string>,
  formPath = path,
  address = '127.0.0.1',
): Promise<Response> {
  const from = { 'x-forwarded-for': address }
  const form = await fetch(`${base}${formPath}`, { headers: from })
  const cookie = form.headers.getSetCookie()[0]?.split(';', 1)[0] ?? ''
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1] ?? ''
  return fetch(`${base}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, ...from },
    body: new URLSearchParams({ _csrf: csrf, ...fields }),
  })
}

/** The address's owner resets the password from the mailed link: the reset's answer. */
async function resetByMail(base: string, inbox: SmtpInbox, email: string): Promise<Response> {
  assert.equal((await postForm(base, '/forgot', { email })).status, 200)
  const mail = await inbox.waitFor(email, /Reset your Burrow password/)
  const url = new URL(inbox.link(mail))
  return postForm(
    base,
    '/reset',
    { token: url.searchParams.get('token')!, password: 'purple otter lamp' },
    url.pathname + url.search,
  )
}

for (const backend of testBackends()) {
  describe(`an earlier holder making tokens during the owner's reset, on ${backend.name}`, () => {
    let inbox: SmtpInbox | undefined
    let service: Service | undefined
    let database: TestDatabase | undefined

    after(async () => {
      await service?.close()
      await inbox?.close()
      await database?.drop()
    })

    it('leaves none of their tokens working', { timeout: 120_000 }, async () => {
      inbox = await startSmtpInbox()
      database = await backend.create()
      service = await startService({
        BURROW_SMTP_URL: inbox.url,
        BURROW_MAIL_FROM: 'Burrow Tests <tunnels@burrow.test>',
        ...(database.config.databaseUrl
          ? { BURROW_DATABASE_URL: database.config.databaseUrl }
          : {}),
      })
      const base = `http://127.0.0.1:${service.port}`
      // The earlier holder signs up with the owner's address, never confirmed.
      const holder = await signUp(base, 'owner')
      const made = [holder.token]
      let stop = false
      const churn = async () => {
        while (!stop) {
          const using =
            made[made.length - 1 - Math.floor(Math.random() * Math.min(made.length, 4))]!
          const api = bearerApi(base, using)
          const token = await api<{ secret?: string }>('POST', '/api/tokens', {
            name: 'kept',
          }).catch(() => null)
          if (token?.status === 201 && token.json.secret) made.push(token.json.secret)
          if (made.length > 25) {
            const listed = await api<{ tokens?: { id: string }[] }>('GET', '/api/tokens').catch(
              () => null,
            )
            const oldest = listed?.json.tokens?.[0]?.id
            if (oldest) await api('DELETE', `/api/tokens/${oldest}`).catch(() => null)
          }
        }
      }
      const workers = Array.from({ length: 6 }, churn)
      await new Promise((resolve) => setTimeout(resolve, 300))

      // The owner resets the password from the mailed link.
      const reset = await resetByMail(base, inbox, 'owner@example.com')
      assert.equal(reset.status, 200, await reset.text())
      stop = true
      await Promise.all(workers)
      assert.ok(made.length > 1, 'the earlier holder made tokens')
      const working: string[] = []
      for (const token of new Set(made)) {
        if ((await bearerApi(base, token)('GET', '/api/account')).status === 200)
          working.push(token)
      }
      assert.deepEqual(working, [], `${working.length} of ${made.length} tokens still work`)
    })

    it('refuses what the earlier holder sent before the reset and finished after', async () => {
      const base = `http://127.0.0.1:${service!.port}`
      const holder = await signUp(base, 'squatter')
      const made = await holder.api<{ tunnel: { id: string } }>('POST', '/api/tunnels', {
        name: 'kept',
        access: 'oauth',
      })
      const id = made.json.tunnel.id
      // Two requests whose bodies wait: opening the tunnel to anyone (API token), and a new key
      // (the dashboard's form, with the browser session).
      const opening = await heldRequest(
        service!.port,
        'PUT',
        `/api/tunnels/${id}/access`,
        { authorization: `Bearer ${holder.token}`, 'content-type': 'application/json' },
        JSON.stringify({ mode: 'public' }),
      )
      const rotating = await heldRequest(
        service!.port,
        'POST',
        `/dashboard/tunnels/${id}/rotate-key`,
        { cookie: holder.cookie, 'content-type': 'application/x-www-form-urlencoded' },
        new URLSearchParams({ _csrf: holder.csrf }).toString(),
      )
      // The address's owner resets the password.
      const reset = await resetByMail(base, inbox!, 'squatter@example.com')
      assert.equal(reset.status, 200)
      assert.equal(await opening(), 401)
      assert.notEqual(await rotating(), 200)
      const owner = bearerApi(base, holder.token)
      assert.equal((await owner('GET', '/api/account')).status, 401, 'the token was revoked')
    })

    it('signs out every browser that signed in with the old password during the reset', async () => {
      const base = `http://127.0.0.1:${service!.port}`
      await signUp(base, 'signer', 'old horse battery')
      const sessions: string[] = []
      let stop = false
      let n = 0
      const signIns = async () => {
        while (!stop) {
          // Each from an address of its own, under the per-address limit.
          const address = `10.7.${Math.floor(n / 250)}.${n++ % 250}`
          const fields = { email: 'signer@example.com', password: 'old horse battery' }
          const res = await postForm(base, '/signin', fields, '/signin', address).catch(() => null)
          const cookie = res?.headers
            .getSetCookie()
            .find((c) => c.startsWith('burrow_session=') && !c.startsWith('burrow_session=;'))
          if (cookie) sessions.push(cookie.split(';', 1)[0]!)
          await res?.arrayBuffer()
        }
      }
      const workers = Array.from({ length: 6 }, signIns)
      await new Promise((resolve) => setTimeout(resolve, 300))
      const reset = await resetByMail(base, inbox!, 'signer@example.com')
      assert.equal(reset.status, 200)
      stop = true
      await Promise.all(workers)
      assert.ok(sessions.length > 0, 'the old password signed in before the reset')
      let live = 0
      for (const cookie of sessions) {
        const page = await fetch(`${base}/dashboard`, { headers: { cookie }, redirect: 'manual' })
        await page.arrayBuffer()
        if (page.status === 200) live++
      }
      assert.equal(live, 0, `${live} of ${sessions.length} sessions still signed in`)
    })
  })
}
