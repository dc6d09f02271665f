/**
 * One mailbox per account: the address rule (`isEmailAddress`), and the SMTP mailer, which sends
 * a stored address as exactly that mailbox (a real SMTP server on loopback) and refuses one that
 * names other mailboxes inside it.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { canonicalEmail, emailLookupKey, isEmailAddress } from '../../src/mail/email-address.js'
import { SmtpMailer } from '../../src/mail/smtp-mailer.js'
import { startSmtpInbox, type SmtpInbox } from '../../../../test/helpers/smtp-inbox.js'

describe('email addresses', () => {
  it('accepts one mailbox, in any script', () => {
    for (const email of [
      'a@b.c',
      'demo@localhost.test',
      'first.last+tag@example.com',
      "o'brien@example.ie",
      'x_y-z@sub-domain.example.org',
      'ünïcode@bücher.example',
      'a@localhost',
      'उदाहरण@उदाहरण.भारत',
      'cafe\u0301@example.com',
      'a@my_host.example.com',
    ]) {
      assert.ok(isEmailAddress(email), email)
    }
  })

  it('refuses what a mail library could read as a list, a name or a comment', () => {
    for (const email of [
      'root,postmaster;bob@ex.test',
      'victim.example.com<attacker@evil.test>',
      'a@b.c,c@d.e',
      'a(comment)@b.c',
      '"quoted"@b.c',
      'a b@c.d',
      'a@b.c\r\nBcc: x@y.z',
      'a:b@c.d',
      'a\\b@c.d',
      '[a]@b.c',
      'a@[127.0.0.1]',
      '.a@b.c',
      'a.@b.c',
      'a..b@c.d',
      'a@-b.c',
      'a@b-.c',
      'a@b..c',
      'a@',
      '@b.c',
      'nope',
      `${'a'.repeat(251)}@b.c`,
    ]) {
      assert.ok(!isEmailAddress(email), email)
    }
  })

  describe('through SMTP', () => {
    let inbox: SmtpInbox
    let mailer: SmtpMailer
    before(async () => {
      inbox = await startSmtpInbox()
      mailer = new SmtpMailer(inbox.url, 'Burrow <noreply@burrow.test>')
    })
    after(async () => {
      mailer.close()
      await inbox.close()
    })

    it('sends to exactly the stored mailbox, and refuses an address naming others', async () => {
      await mailer.send({ to: 'first.last+tag@example.com', subject: 'one', text: 'hello' })
      const mail = await inbox.waitFor('first.last+tag@example.com', /^one$/)
      assert.deepEqual(mail.to, ['first.last+tag@example.com'])
      for (const to of [
        'victim.example.com<attacker@evil.test>',
        'root,postmaster;bob@ex.test',
        'a@b.c b@d.e',
      ]) {
        await assert.rejects(mailer.send({ to, subject: 'two', text: 'x' }), /not one mailbox/)
      }
      // The mailer goes on sending to well-formed addresses after refusing those.
      await mailer.send({ to: 'a@b.c', subject: 'three', text: 'after' })
      await inbox.waitFor('a@b.c', /^three$/)
      assert.deepEqual(
        inbox.mails.map((m) => m.subject),
        ['one', 'three'],
      )
    })
  })

  it('spells one mailbox one way (found by a hostile review)', () => {
    const fullWidth = 'Bob@\uFF45\uFF58\uFF41\uFF4D\uFF50\uFF4C\uFF45.com'
    assert.equal(canonicalEmail(fullWidth), 'bob@example.com')
    assert.equal(canonicalEmail('  Bob@Example.COM '), 'bob@example.com')
    assert.equal(canonicalEmail('jose\u0301@b\u00fccher.de'), 'jos\u00e9@b\u00fccher.de')
    assert.equal(canonicalEmail('a@xn--bcher-kva.de'), 'a@b\u00fccher.de')
    assert.ok(isEmailAddress(canonicalEmail(fullWidth)))
    assert.equal(emailLookupKey('nul\u0000@example.com'), null)
    assert.equal(emailLookupKey('A@Example.com'), 'a@example.com')
  })
})
