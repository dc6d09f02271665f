/**
 * The mail allowances of account recovery: reset links and verification links are counted
 * apart, so that whoever holds an account (someone who signed up with another person's address)
 * cannot spend the allowance the address's owner needs to get a reset link, and strangers asking
 * for reset links cannot spend the signed-in owner's verification mails.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { silentLogger } from '@burrow/protocol'
import {
  AccountRecovery,
  MAILS_PER_ACCOUNT_PER_HOUR,
  RESET_REQUESTS_PER_ADDRESS,
  RESET_REQUESTS_PER_NETWORK,
  VERIFICATIONS_PER_ADDRESS_PER_HOUR,
  VERIFICATIONS_PER_NETWORK_PER_HOUR,
} from '../../src/app/account-recovery.js'
import type { MailMessage } from '../../src/mail/mailer.js'
import { openStore } from '../../src/store/open-store.js'
import type { Account, Store } from '../../src/store/store.js'
import { testBackends, type TestDatabase } from '../helpers/test-databases.js'

const [backend] = testBackends()
/** The client addresses verification mails are asked from. */
const OWNER = '198.51.100.7'
const STRANGER = '203.0.113.9'

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
      recovery.sendVerification(account.id, account.email, OWNER)
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
    assert.equal(recovery.sendVerification(account.id, account.email, OWNER), true)
    await recovery.idle()
    assert.equal(sent.filter((m) => m.text.includes('/verify?token=')).length, 1)
  })

  it('still bounds verification links per account', async () => {
    const answers = Array.from({ length: MAILS_PER_ACCOUNT_PER_HOUR + 1 }, () =>
      recovery.sendVerification(account.id, account.email, OWNER),
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
    const verifications = squatted.map((a) => recovery.sendVerification(a.id, a.email, STRANGER))
    verifications.push(recovery.sendVerification(account.id, account.email, OWNER))
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

  /** `count` accounts of different mailboxes, made by a stranger. */
  async function strangersAccounts(count: number, prefix: string): Promise<Account[]> {
    const made = []
    for (let i = 0; i < count; i++) {
      made.push(
        await store.createAccount({ email: `${prefix}${i}@example.net`, slug: `${prefix}${i}` }),
      )
    }
    return made
  }

  it('bounds the verification mails one IPv6 /64 asks for, whatever address of it asks', async () => {
    const accounts = await strangersAccounts(VERIFICATIONS_PER_ADDRESS_PER_HOUR + 5, 'v')
    // Every request from another address of one /64, each for another mailbox.
    const answers = accounts.map((a, i) =>
      recovery.sendVerification(a.id, a.email, `2001:db8:1:2::${(i + 1).toString(16)}`),
    )
    assert.equal(answers.filter(Boolean).length, VERIFICATIONS_PER_ADDRESS_PER_HOUR)
    assert.deepEqual(answers.slice(VERIFICATIONS_PER_ADDRESS_PER_HOUR), [
      false,
      false,
      false,
      false,
      false,
    ])
    await recovery.idle()
    assert.equal(sent.length, VERIFICATIONS_PER_ADDRESS_PER_HOUR)
    // Another network's client is not refused for it.
    assert.equal(recovery.sendVerification(account.id, account.email, OWNER), true)
  })

  it('bounds the verification mails of one network: many /64s of a /48, many IPv4 of a /24', async () => {
    const accounts = await strangersAccounts(2 * VERIFICATIONS_PER_NETWORK_PER_HOUR + 10, 'n')
    const half = VERIFICATIONS_PER_NETWORK_PER_HOUR + 5
    // One /64 per request, all in one /48.
    const v6 = accounts
      .slice(0, half)
      .map((a, i) => recovery.sendVerification(a.id, a.email, `2001:db8:7:${i.toString(16)}::1`))
    assert.equal(v6.filter(Boolean).length, VERIFICATIONS_PER_NETWORK_PER_HOUR)
    // One IPv4 address per request, all in one /24.
    const v4 = accounts
      .slice(half)
      .map((a, i) => recovery.sendVerification(a.id, a.email, `192.0.2.${i + 1}`))
    assert.equal(v4.filter(Boolean).length, VERIFICATIONS_PER_NETWORK_PER_HOUR)
    await recovery.idle()
    assert.equal(sent.length, 2 * VERIFICATIONS_PER_NETWORK_PER_HOUR)
    // A refused client spent nothing of the accounts' own allowances.
    const refused = accounts[half - 1]!
    assert.equal(recovery.sendVerification(refused.id, refused.email, OWNER), true)
  })

  it('bounds the reset requests of an IPv6 /64 and of its /48, but not of known browsers', async () => {
    const inOne64 = Array.from(
      { length: RESET_REQUESTS_PER_ADDRESS + 3 },
      (_, i) =>
        recovery.requestReset('owner@example.com', `2001:db8:9:1::${(i + 1).toString(16)}`).ok,
    )
    assert.equal(inOne64.filter(Boolean).length, RESET_REQUESTS_PER_ADDRESS)
    const inOne48 = Array.from(
      { length: RESET_REQUESTS_PER_NETWORK + 5 },
      (_, i) =>
        recovery.requestReset('nobody@example.com', `2001:db8:9:${(i + 2).toString(16)}::1`).ok,
    )
    assert.equal(
      inOne48.filter(Boolean).length,
      RESET_REQUESTS_PER_NETWORK - RESET_REQUESTS_PER_ADDRESS,
    )
    const refused = recovery.requestReset('owner@example.com', '2001:db8:9:ffff::1')
    assert.equal(refused.ok, false)
    // The owner's known browser in that network still asks (its own /64's limit only).
    assert.deepEqual(recovery.requestReset('owner@example.com', '2001:db8:9:fffe::1', true), {
      ok: true,
    })
    await recovery.idle()
    assert.equal(resets().at(-1)?.to, 'owner@example.com')
  })
})
