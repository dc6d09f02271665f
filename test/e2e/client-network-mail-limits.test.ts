/**
 * How much mail one stranger with many client addresses next to each other can make burrowd
 * send, through a real SMTP server (`smtp-server` on loopback). Sign-ups and reset requests were
 * bounded per client address (IPv6: per /64) only, and nothing bounded the verification mails a
 * client's sign-ups and "Send a new link" presses cause: a stranger with an IPv6 /48 (65,536
 * /64s) or an IPv4 /24 had that many allowances. Now verification mails are bounded per client
 * address and per network (IPv4 /24, IPv6 /48), and so are reset requests, requests at once
 * included; the mail always goes to the address as signed up.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import {
  RESET_REQUESTS_PER_ADDRESS,
  RESET_REQUESTS_PER_NETWORK,
  VERIFICATIONS_PER_ADDRESS_PER_HOUR,
  VERIFICATIONS_PER_NETWORK_PER_HOUR,
} from '../../packages/server/src/app/account-recovery.js'
import {
  forgotFrom,
  inParallel,
  resendFrom,
  signUpFrom,
  type SignedUp,
} from '../helpers/sign-up-from.js'
import { startSmtpInbox, type SmtpInbox } from '../helpers/smtp-inbox.js'
import { startService, type Service } from '../helpers/stack.js'

const CONFIRM = /Confirm your email address/

describe('mail asked for by many addresses of one network', { timeout: 180_000 }, () => {
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

  /** Verification mails received so far to addresses matching `to`. */
  const confirmations = (to: RegExp) =>
    inbox.mails.filter((m) => CONFIRM.test(m.subject) && m.to.some((t) => to.test(t)))

  it("bounds the verification mails of one /64's many addresses, sign-ups and new links at once", async () => {
    // Five accounts for five different mailboxes, from five addresses of one /64, then each
    // presses "Send a new link" three times, all at once, from yet other addresses of it.
    const emails = Array.from({ length: 5 }, (_, i) => `sixtyfour${i}@example.org`)
    const sessions = await inParallel(emails, 5, (email, i) =>
      signUpFrom(base, email, `sixtyfour${i}`, `2001:db8:64:1::${i + 1}`),
    )
    const presses = sessions.flatMap((s) => [s, s, s])
    const notices = await inParallel(presses, presses.length, (s, i) =>
      resendFrom(base, s, `2001:db8:64:1:${(i + 1).toString(16)}::9`),
    )
    assert.equal(
      notices.filter((n) => n === 'verify_sent').length,
      VERIFICATIONS_PER_ADDRESS_PER_HOUR - emails.length,
    )
    for (const email of emails) await inbox.waitFor(email, CONFIRM)
    await new Promise((resolve) => setTimeout(resolve, 1000))
    assert.equal(confirmations(/^sixtyfour/).length, VERIFICATIONS_PER_ADDRESS_PER_HOUR)
  })

  /**
   * Sign up `accounts` accounts of different mailboxes, one client address each (`from`), then
   * press "Send a new link" twice in each, all at once, from yet other addresses: three mails
   * asked per account (its own allowance), more than the network's in all. Returns one more
   * sign-up of that network, after them.
   */
  async function floodNetwork(
    name: string,
    accounts: number,
    from: (i: number) => string,
  ): Promise<SignedUp> {
    const emails = Array.from({ length: accounts }, (_, i) => `${name}${i}@example.org`)
    const sessions = await inParallel(emails, 8, (email, i) =>
      signUpFrom(base, email, `${name}${i}`, from(i)),
    )
    const presses = sessions.flatMap((s) => [s, s])
    const notices = await inParallel(presses, presses.length, (s, i) =>
      resendFrom(base, s, from(accounts + i)),
    )
    assert.equal(
      notices.filter((n) => n === 'verify_sent').length,
      VERIFICATIONS_PER_NETWORK_PER_HOUR - accounts,
    )
    const to = new RegExp(`^${name}\\d+@`)
    while (confirmations(to).length < VERIFICATIONS_PER_NETWORK_PER_HOUR) {
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    await new Promise((resolve) => setTimeout(resolve, 1000))
    assert.equal(confirmations(to).length, VERIFICATIONS_PER_NETWORK_PER_HOUR)
    for (const mail of confirmations(to)) {
      assert.ok(emails.includes(mail.to[0]!), 'mailed to an address as signed up')
    }
    return signUpFrom(base, `${name}-late@example.org`, `${name}-late`, from(999))
  }

  it('bounds the verification mails of one /48, one /64 per request, and mails another network', async () => {
    const accounts = Math.ceil(VERIFICATIONS_PER_NETWORK_PER_HOUR / 3) + 1
    const late = await floodNetwork(
      'fortyeight',
      accounts,
      (i) => `2001:db8:48:${(i + 1).toString(16)}::1`,
    )
    // The late newcomer of that network is told no link went.
    assert.equal(late.notice, 'verify_deferred')
    const page = await fetch(`${base}/dashboard?notice=verify_deferred`, {
      headers: { cookie: late.cookie, 'x-forwarded-for': '2001:db8:48:ffff::1' },
    })
    assert.match(await page.text(), /did not send a confirmation link/)
    // Another network's newcomer still gets theirs.
    await signUpFrom(base, 'elsewhere@example.org', 'elsewhere', '2001:db8:49::1')
    await inbox.waitFor('elsewhere@example.org', CONFIRM)
  })

  it('bounds the verification mails of one IPv4 /24, one address per request', async () => {
    const accounts = Math.ceil(VERIFICATIONS_PER_NETWORK_PER_HOUR / 3) + 1
    const late = await floodNetwork('twentyfour', accounts, (i) => `198.51.100.${(i % 250) + 1}`)
    assert.equal(late.notice, 'verify_deferred')
  })

  it("bounds the reset requests of one /48's many /64s, asked at once", async () => {
    const tries = RESET_REQUESTS_PER_NETWORK + 10
    const statuses = await inParallel(Array.from({ length: tries }), 10, (_, i) =>
      forgotFrom(base, 'elsewhere@example.org', `2001:db8:50:${(i + 1).toString(16)}::1`),
    )
    assert.equal(statuses.filter((s) => s === 200).length, RESET_REQUESTS_PER_NETWORK)
    assert.equal(statuses.filter((s) => s === 429).length, tries - RESET_REQUESTS_PER_NETWORK)
    // One /64's many addresses still count as one client.
    const one64 = await inParallel(
      Array.from({ length: RESET_REQUESTS_PER_ADDRESS + 3 }),
      8,
      (_, i) => forgotFrom(base, 'elsewhere@example.org', `2001:db8:51:1::${(i + 1).toString(16)}`),
    )
    assert.equal(one64.filter((s) => s === 200).length, RESET_REQUESTS_PER_ADDRESS)
  })
})
