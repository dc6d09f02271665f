/**
 * How much mail one stranger can make burrowd send to one mailbox, through a real SMTP server
 * (`smtp-server` on loopback). An email signs up one account, but `victim+1@…`, `victim+2@…`
 * (and `v.ictim@…` where the provider ignores dots) are as many addresses for one mailbox:
 * from one client address, a stranger signed up ten such accounts a minute, each mailing a
 * verification link at sign-up and three more an hour with "Send a new link", all to the
 * victim's inbox. Verification mails are bounded per mailbox now, whatever the tag.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { startSmtpInbox, type SmtpInbox } from '../helpers/smtp-inbox.js'
import { startService, type Service } from '../helpers/stack.js'

const PASSWORD = 'correct horse battery'
/** The stranger's one client address (burrowd trusts loopback's X-Forwarded-For). */
const STRANGER = '203.0.113.9'

/** The value of cookie `name` set by `res`, as a Cookie header entry. */
function cookieOf(res: Response, name: string): string {
  const set = res.headers.getSetCookie().find((c) => c.startsWith(`${name}=`))
  return set?.split(';', 1)[0] ?? ''
}

/** Sign up `email` from the stranger's address; returns the session cookie and CSRF token. */
async function signUpAs(
  base: string,
  email: string,
  slug: string,
): Promise<{ cookie: string; csrf: string }> {
  const headers = { 'x-forwarded-for': STRANGER }
  const form = await fetch(`${base}/signup`, { headers })
  const formToken = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1] ?? ''
  const res = await fetch(`${base}/signup`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      ...headers,
      'content-type': 'application/x-www-form-urlencoded',
      cookie: cookieOf(form, 'burrow_form'),
    },
    body: new URLSearchParams({ _csrf: formToken, email, password: PASSWORD, slug }),
  })
  assert.equal(res.status, 303, await res.text())
  const cookie = cookieOf(res, 'burrow_session')
  const dashboard = await fetch(`${base}/dashboard`, { headers: { ...headers, cookie } })
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await dashboard.text())?.[1] ?? ''
  return { cookie, csrf }
}

describe('verification mail to one mailbox under many spellings', { timeout: 120_000 }, () => {
  let inbox: SmtpInbox
  let service: Service
  let base: string

  before(async () => {
    inbox = await startSmtpInbox()
    service = await startService({ BURROW_SMTP_URL: inbox.url })
    base = `http://127.0.0.1:${service.port}`
  })

  after(async () => {
    await service?.close()
    await inbox?.close()
  })

  it('sends one mailbox at most three verification mails an hour, whatever its tags', async () => {
    const spellings = [
      'victim+1@example.com',
      'victim+2@example.com',
      'vic.tim@example.com',
      'Victim+news@Example.com',
      'v.i.c.t.i.m+x@example.com',
    ]
    const sessions = []
    for (const [i, email] of spellings.entries()) {
      sessions.push(await signUpAs(base, email, `squat${i}`))
    }
    const notices: string[] = []
    for (const { cookie, csrf } of sessions) {
      for (let i = 0; i < 2; i++) {
        const res = await fetch(`${base}/dashboard/account/verify`, {
          method: 'POST',
          redirect: 'manual',
          headers: {
            'x-forwarded-for': STRANGER,
            'content-type': 'application/x-www-form-urlencoded',
            cookie,
          },
          body: new URLSearchParams({ _csrf: csrf }),
        })
        assert.equal(res.status, 303)
        notices.push(new URL(res.headers.get('location') ?? '', base).searchParams.get('notice')!)
      }
    }
    // Mail is sent in the background: give it time to arrive, then count what the mailbox got.
    await new Promise((resolve) => setTimeout(resolve, 1500))
    const toVictim = inbox.mails.filter((m) =>
      m.to.some((to) => /^v\.?i\.?c\.?t\.?i\.?m(\+[^@]*)?@example\.com$/.test(to)),
    )
    assert.ok(
      toVictim.length <= 3,
      `the victim's mailbox got ${toVictim.length} verification mails: ${JSON.stringify(toVictim.map((m) => m.to))}`,
    )
    assert.ok(notices.includes('verify_limited'), 'the stranger was told no mail went')
  })

  it("still mails an unrelated address's verification link", async () => {
    await signUpAs(base, 'someone.else@example.com', 'someoneelse')
    const mail = await inbox.waitFor('someone.else@example.com', /Confirm your email address/)
    assert.match(inbox.link(mail), /\/verify\?token=/)
  })
})
