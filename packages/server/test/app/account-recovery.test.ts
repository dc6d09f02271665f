/**
 * The mail allowances of account recovery: reset links and verification links are counted
 * apart, so that whoever holds an account (someone who signed up with another person's address)
 * cannot spend the allowance the address's owner needs to get a reset link, and strangers asking
 * for reset links cannot spend the signed-in owner's verification mails.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { silentLogger } from '@burrow/protocol'
import { AccountRecovery, MAILS_PER_ACCOUNT_PER_HOUR } from '../../src/app/account-recovery.js'
import type { MailMessage } from '../../src/mail/mailer.js'
import { openStore } from '../../src/store/open-store.js'
import type { Account, Store } from '../../src/store/store.js'
import { testBackends, type TestDatabase } from '../helpers/test-databases.js'

const [backend] = testBackends()

describe('AccountRecovery mail allowances', () => {
  let database: TestDatabase
  let store: Store
  let account: Account
  let sent: MailMessage[]
  let recovery: AccountRecovery

  beforeEach(async () => {
    database = await backend!.create()
    const clock = Date.parse('2026-03-01T10:00:00Z')
    store = await openStore(database.config, { now: () => new Date(clock) })
    account = await store.createAccount({ email: 'owner@example.com', slug: 'owner' })
    sent = []
    recovery = new AccountRecovery({
      store,
      mailer: {
        send: (message) => {
          sent.push(message)
          return Promise.resolve()
        },
        close: () => {},
      },
      serviceUrl: 'https://burrow.example',
      log: silentLogger,
      now: () => clock,
    })
  })

  afterEach(async () => {
    await recovery.idle()
    await store.close()
    await database.drop()
  })

  const resets = () => sent.filter((m) => m.text.includes('/reset?token='))

  it("mails the address's owner a reset link after the account's holder sent verification links", async () => {
    // Someone signed up with the owner's address and presses "send a new confirmation link".
    for (let i = 0; i < MAILS_PER_ACCOUNT_PER_HOUR + 2; i++) {
      recovery.sendVerification(account.id, account.email)
    }
    await recovery.idle()
    // The owner, on a browser that never signed in to the account, asks for a reset.
    assert.deepEqual(recovery.requestReset('owner@example.com', 'owner-address'), { ok: true })
    await recovery.idle()
    assert.equal(resets().length, 1, 'the reset link reached the address')
  })

  it("sends the signed-in owner's verification link after strangers asked for resets", async () => {
    for (let i = 0; i < MAILS_PER_ACCOUNT_PER_HOUR + 2; i++) {
      recovery.requestReset('owner@example.com', `stranger-${i}`)
    }
    await recovery.idle()
    assert.equal(resets().length, MAILS_PER_ACCOUNT_PER_HOUR)
    assert.equal(recovery.sendVerification(account.id, account.email), true)
    await recovery.idle()
    assert.equal(sent.filter((m) => m.text.includes('/verify?token=')).length, 1)
  })

  it('still bounds verification links per account', async () => {
    const answers = Array.from({ length: MAILS_PER_ACCOUNT_PER_HOUR + 1 }, () =>
      recovery.sendVerification(account.id, account.email),
    )
    assert.deepEqual(answers, [
      ...Array.from({ length: MAILS_PER_ACCOUNT_PER_HOUR }, () => true),
      false,
    ])
  })

  it('bounds the mail one mailbox gets through the accounts of its tagged spellings', async () => {
    // A stranger signed up `owner+1@`, `o.wner@`…: other accounts, one inbox.
    const squatted = []
    for (const [i, email] of [
      'owner+1@example.com',
      'o.wner@example.com',
      'owner+x@example.com',
    ].entries()) {
      squatted.push(await store.createAccount({ email, slug: `squat${i}` }))
    }
    const verifications = squatted.map((a) => recovery.sendVerification(a.id, a.email))
    verifications.push(recovery.sendVerification(account.id, account.email))
    assert.deepEqual(verifications, [true, true, true, false])
    for (const [i, a] of squatted.entries()) recovery.requestReset(a.email, `stranger-${i}`)
    recovery.requestReset('owner@example.com', 'stranger-9')
    await recovery.idle()
    assert.equal(sent.length, 2 * MAILS_PER_ACCOUNT_PER_HOUR, 'three of each kind reached it')
    // The owner's own browser, known to the account, keeps an allowance strangers cannot spend.
    recovery.requestReset('owner@example.com', 'owner-address', true)
    await recovery.idle()
    assert.equal(resets().at(-1)?.to, 'owner@example.com')
    assert.equal(resets().length, MAILS_PER_ACCOUNT_PER_HOUR + 1)
  })
})
