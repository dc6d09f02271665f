/**
 * A reset link names the account it resets. Anyone can ask for a reset of their own account and
 * send the link to someone else ("choose a new password"): the page, on Burrow's own host, did
 * not say whose password it sets, and setting one signs the browser in, so the one who followed
 * the link went on in the sender's account (their tunnels, their local servers' traffic, seen by
 * the sender through an API token the reset keeps). The page now names the account, and the
 * form carries the address as its username, so a password manager files the password under it.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { startSmtpInbox, type SmtpInbox } from '../helpers/smtp-inbox.js'
import { startService, type Service } from '../helpers/stack.js'
import { signUp } from '../helpers/web-client.js'

/** The form at `path`: its cookie and form token. */
async function openForm(base: string, path: string): Promise<{ cookie: string; csrf: string }> {
  const form = await fetch(`${base}${path}`)
  assert.equal(form.status, 200)
  const cookie = form.headers.getSetCookie()[0]?.split(';', 1)[0] ?? ''
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1] ?? ''
  return { cookie, csrf }
}

async function post(
  base: string,
  path: string,
  form: { cookie: string; csrf: string },
  fields: Record<string, string>,
): Promise<Response> {
  return fetch(`${base}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: form.cookie },
    body: new URLSearchParams({ _csrf: form.csrf, ...fields }),
  })
}

describe('a reset link names its account', { timeout: 60_000 }, () => {
  let inbox: SmtpInbox
  let service: Service
  let base: string

  before(async () => {
    inbox = await startSmtpInbox()
    service = await startService({
      BURROW_SMTP_URL: inbox.url,
      BURROW_MAIL_FROM: 'Burrow Tests <tunnels@burrow.test>',
    })
    base = `http://127.0.0.1:${service.port}`
  })

  after(async () => {
    await service?.close()
    await inbox?.close()
  })

  it('shows whose password the form sets, and gives it as the username', async () => {
    await signUp(base, 'sender')
    const asked = await post(base, '/forgot', await openForm(base, '/forgot'), {
      email: 'sender@example.com',
    })
    assert.equal(asked.status, 200)
    const link = new URL(
      inbox.link(await inbox.waitFor('sender@example.com', /Reset your Burrow password/)),
    )
    const path = link.pathname + link.search

    const page = await (await fetch(`${base}${path}`)).text()
    assert.match(page, /id="reset-account">[^<]*<strong>sender@example\.com<\/strong>/)
    assert.match(
      page,
      /<input[^>]*name="username"[^>]*autocomplete="username"[^>]*value="sender@example\.com"/,
    )

    // A refused password shows the form again, still naming the account.
    const form = await openForm(base, path)
    const refused = await post(base, '/reset', form, {
      token: link.searchParams.get('token')!,
      password: 'short',
    })
    assert.equal(refused.status, 400)
    assert.match(await refused.text(), /id="reset-account">[^<]*<strong>sender@example\.com/)
  })
})
