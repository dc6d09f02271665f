/**
 * How much mail one stranger can make burrowd send to one mailbox, through a real SMTP server
 * (`smtp-server` on loopback). An email signs up one account, but `victim+1@…`, `victim+2@…`
 * (and `v.ictim@…` where the provider ignores dots) are as many addresses for one mailbox:
 * from one client address, a stranger signed up ten such accounts a minute, each mailing a
 * verification link at sign-up and three more an hour with "Send a new link", all to the
 * victim's inbox. Verification mails are bounded per mailbox now, whatever the tag; and a
 * provider's other domains and separators (`@googlemail.com` for `@gmail.com`) are the same
 * mailbox, which before had allowances of their own.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { inParallel, resendFrom, signUpFrom } from '../helpers/sign-up-from.js'
import { startSmtpInbox, type SmtpInbox } from '../helpers/smtp-inbox.js'
import { startService, type Service } from '../helpers/stack.js'

/** The stranger's one client address (burrowd trusts loopback's X-Forwarded-For). */
const STRANGER = '203.0.113.9'

/** Sign up `email` from the stranger's address; returns the session cookie and CSRF token. */
function signUpAs(base: string, email: string, slug: string) {
  return signUpFrom(base, email, slug, STRANGER)
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
    for (const session of sessions) {
      for (let i = 0; i < 2; i++) notices.push(await resendFrom(base, session, STRANGER))
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

  it('sends one Gmail inbox at most three, through its other domain, case and dots, at once', async () => {
    // Five spellings of one Gmail inbox, signed up at once from five addresses of one /64 (the
    // /64's own sign-ups stay within its limit), then "Send a new link" twice each, at once.
    const spellings = [
      'gvictim@gmail.com',
      'gv.ictim@GMAIL.COM',
      'gvictim@googlemail.com',
      'g.v.i.c.t.i.m+x@GoogleMail.com',
      'gvictim+2@gmail.com',
    ]
    const from = (i: number) => `2001:db8:77:1::${i + 1}`
    const sessions = await inParallel(spellings, spellings.length, (email, i) =>
      signUpFrom(base, email, `gsquat${i}`, from(i)),
    )
    await inParallel(sessions, sessions.length, (s, i) => resendFrom(base, s, from(i)))
    await inParallel(sessions, sessions.length, (s, i) => resendFrom(base, s, from(i)))
    await new Promise((resolve) => setTimeout(resolve, 1500))
    const toVictim = inbox.mails.filter((m) =>
      m.to.some((to) => /^g\.?v\.?i\.?c\.?t\.?i\.?m(\+[^@]*)?@(gmail|googlemail)\.com$/i.test(to)),
    )
    assert.ok(
      toVictim.length <= 3,
      `the Gmail inbox got ${toVictim.length} verification mails: ${JSON.stringify(toVictim.map((m) => m.to))}`,
    )
    // Each was sent to the address as it was signed up, never to the folded key.
    for (const mail of toVictim) assert.ok(spellings.some((e) => mail.to.includes(e.toLowerCase())))
    // Sign-ups past the mailbox's allowance were told no link went.
    assert.ok(sessions.some((s) => s.notice === 'verify_deferred'))
  })

  it("still mails an unrelated address's verification link", async () => {
    await signUpAs(base, 'someone.else@example.com', 'someoneelse')
    const mail = await inbox.waitFor('someone.else@example.com', /Confirm your email address/)
    assert.match(inbox.link(mail), /\/verify\?token=/)
  })
})
