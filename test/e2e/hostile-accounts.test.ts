/**
 * Hostile traffic against the dashboard's accounts, through a real burrowd: weak passwords are
 * refused at sign-up; sign-in limits count per client address behind the trusted proxy (each
 * address its own bucket), and an attacker guessing from many addresses stops further guesses
 * without locking the owner out of a browser they signed in with before; the dev checkout sends
 * a buyer back only to this service.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { startService, type Service } from '../helpers/stack.js'
import { formPost, signUp } from '../helpers/web-client.js'

describe('hostile traffic against accounts', () => {
  let service: Service
  let base: string

  before(async () => {
    service = await startService({ BURROW_LOG: 'info' })
    base = `http://127.0.0.1:${service.port}`
  })

  after(async () => {
    await service?.close()
  })

  it('refuses common and degenerate passwords at sign-up, naming the rule', async () => {
    const cases: [string, RegExp][] = [
      ['password', /most commonly used/],
      ['12345678', /most commonly used/],
      ['        ', /only spaces/],
      ['zzzzzzzzzz', /one character repeated/],
    ]
    for (const [i, [password, rule]] of cases.entries()) {
      const res = await formPost(
        base,
        '/signup',
        { email: `weak${i}@example.com`, slug: `weak${i}`, password },
        `192.0.2.${10 + i}`,
      )
      assert.equal(res.status, 400, password)
      assert.match(await res.text(), rule)
    }
  })

  it('counts sign-in attempts per client address, as the trusted proxy reports it', async () => {
    // A different email each time, so that only the address's own bucket can run out.
    let n = 0
    const signIn = (address: string) =>
      formPost(
        base,
        '/signin',
        { email: `nobody${n++}@example.com`, password: 'wrong guess' },
        address,
      )
    // All at once: the bucket gets a try back every 6 s, and eleven sign-ins one after another
    // (each verifies a password) took longer than that on a busy machine.
    const statuses = await Promise.all(
      Array.from({ length: 11 }, async () => (await signIn('198.51.100.1')).status),
    )
    assert.deepEqual(
      statuses.sort(),
      [...Array<number>(10).fill(401), 429],
      'ten tries from one address are answered, the eleventh is throttled',
    )
    assert.equal((await signIn('198.51.100.2')).status, 401, 'another address has its own bucket')
  })

  it('stops a guesser on many addresses without locking the owner out of a known browser', async () => {
    const email = 'victim@example.com'
    const password = 'victim horse battery'
    const made = await formPost(base, '/signup', { email, slug: 'victim', password }, '192.0.2.50')
    assert.equal(made.status, 303, await made.text())
    // The owner signs in once from their browser, which keeps the device cookie.
    const owner = await formPost(base, '/signin', { email, password }, '203.0.113.1')
    assert.equal(owner.status, 303)
    const device = owner.headers
      .getSetCookie()
      .find((c) => c.startsWith('burrow_device='))
      ?.split(';', 1)[0]
    assert.ok(device, 'a successful sign-in leaves a device cookie')

    // An attacker guesses from twelve addresses, one try each.
    const guesses: number[] = []
    for (let i = 0; i < 12; i++) {
      const res = await formPost(base, '/signin', { email, password: `guess ${i}` }, `10.9.0.${i}`)
      guesses.push(res.status)
    }
    assert.deepEqual(guesses.slice(0, 10), Array<number>(10).fill(401))
    assert.deepEqual(guesses.slice(10), [429, 429])
    // Even the right password is refused from a browser that never signed in here…
    const stranger = await formPost(base, '/signin', { email, password }, '10.9.1.1')
    assert.equal(stranger.status, 429)
    assert.match(await stranger.text(), /from a browser you have signed in with before/)
    // …but the owner's browser signs in, from any address.
    const back = await formPost(base, '/signin', { email, password }, '203.0.113.99', [device])
    assert.equal(back.status, 303)
    assert.equal(back.headers.get('location'), '/dashboard')
  })

  it('trusts no browser of the old password after a reset', async () => {
    const email = 'stale@example.com'
    const password = 'stale horse battery'
    const made = await formPost(base, '/signup', { email, slug: 'stale', password }, '192.0.2.60')
    assert.equal(made.status, 303, await made.text())
    // Someone who knew the password collects a device cookie.
    const signedIn = await formPost(base, '/signin', { email, password }, '203.0.113.2')
    const device = signedIn.headers
      .getSetCookie()
      .find((c) => c.startsWith('burrow_device='))
      ?.split(';', 1)[0]
    assert.ok(device)
    // The owner resets the password from the mail (the dev outbox: this burrowd has no SMTP).
    assert.equal((await formPost(base, '/forgot', { email }, '203.0.113.3')).status, 200)
    let token = ''
    for (let i = 0; i < 100 && token === ''; i++) {
      const outbox = await (await fetch(`${base}/dev/outbox`)).text()
      const mail = outbox.split('<article').find((m) => m.includes(email))
      token = /\/reset\?token=([A-Za-z0-9_-]+)/.exec(mail ?? '')?.[1] ?? ''
      if (token === '') await new Promise((resolve) => setTimeout(resolve, 50))
    }
    assert.ok(token, 'the reset mail is in the outbox')
    const reset = await formPost(
      base,
      '/reset',
      { token, password: 'brand new passphrase 77' },
      '203.0.113.3',
      [],
      `/reset?token=${token}`,
    )
    // 200: the page saying what an earlier holder lost (the address was never confirmed).
    assert.equal(reset.status, 200, await reset.text())
    // Guesses at the new password from many addresses empty the account's untrusted bucket…
    for (let i = 0; i < 10; i++) {
      const res = await formPost(base, '/signin', { email, password: `guess ${i}` }, `10.8.0.${i}`)
      assert.equal(res.status, 401)
    }
    // …and the old password's browser is one of them: no guesses of its own.
    const stale = await formPost(base, '/signin', { email, password: 'guess' }, '10.8.1.1', [
      device,
    ])
    assert.equal(stale.status, 429)
    // The browser that reset the password is known from then on: it signs in all the same.
    const resetDevice = reset.headers
      .getSetCookie()
      .find((c) => c.startsWith('burrow_device='))
      ?.split(';', 1)[0]
    assert.ok(resetDevice, 'the reset leaves a device cookie')
    const owner = await formPost(
      base,
      '/signin',
      { email, password: 'brand new passphrase 77' },
      '10.8.1.2',
      [resetDevice],
    )
    assert.equal(owner.status, 303)
  })

  it('serves a known browser while strangers on many addresses flood sign-in, refusing what cannot wait', async () => {
    const email = 'flooded@example.com'
    const password = 'flooded horse battery'
    const made = await formPost(base, '/signup', { email, slug: 'flooded', password }, '192.0.2.70')
    assert.equal(made.status, 303, await made.text())
    const owner = await formPost(base, '/signin', { email, password }, '203.0.113.5')
    const device = owner.headers
      .getSetCookie()
      .find((c) => c.startsWith('burrow_device='))
      ?.split(';', 1)[0]
    assert.ok(device)
    // A hundred strangers, each from an address of its own (no address runs out), each costing
    // one password check: more than the node takes at once plus its waiting places.
    const flood = Array.from({ length: 100 }, (_, i) =>
      formPost(
        base,
        '/signin',
        { email: `flood${i}@example.com`, password: 'wrong guess' },
        `10.20.${Math.floor(i / 200)}.${i % 200}`,
      ),
    )
    const back = formPost(base, '/signin', { email, password }, '203.0.113.6', [device])
    const answers = await Promise.all(flood)
    const statuses = answers.map((res) => res.status)
    assert.ok(
      statuses.every((status) => status === 401 || status === 503),
      `every stranger is answered: a wrong password, or busy (${statuses.join(' ')})`,
    )
    const busy = answers.filter((res) => res.status === 503)
    assert.ok(busy.length > 0, 'the waiting places ran out: the rest were refused at once')
    assert.match(await busy[0]!.text(), /Too many sign-ins are in progress/)
    assert.equal((await back).status, 303, "the owner's browser signs in")
  })

  it("serves a known browser while a stranger floods sign-in with their own account's device cookie", async () => {
    const deviceOf = (res: Response) =>
      res.headers
        .getSetCookie()
        .find((c) => c.startsWith('burrow_device='))
        ?.split(';', 1)[0]
    const email = 'crowded@example.com'
    const password = 'crowded horse battery'
    const made = await formPost(base, '/signup', { email, slug: 'crowded', password }, '192.0.2.71')
    assert.equal(made.status, 303, await made.text())
    const device = deviceOf(await formPost(base, '/signin', { email, password }, '203.0.113.7'))
    assert.ok(device)
    // The stranger's own account, and a browser it knows: every sign-in of theirs is "known".
    const them = { email: 'crowder@example.com', password: 'crowder horse battery' }
    const theirs = await formPost(base, '/signup', { ...them, slug: 'crowder' }, '192.0.2.72')
    assert.equal(theirs.status, 303, await theirs.text())
    const cookie = deviceOf(await formPost(base, '/signin', them, '203.0.113.8'))
    assert.ok(cookie)
    const flood = Array.from({ length: 100 }, (_, i) =>
      formPost(base, '/signin', them, `10.21.${Math.floor(i / 200)}.${i % 200}`, [cookie]),
    )
    // The owner comes once the stranger's sign-ins are being refused: they hold all they can.
    await new Promise<void>((resolve) => {
      for (const res of flood) void res.then((r) => r.status === 503 && resolve())
    })
    const back = formPost(base, '/signin', { email, password }, '203.0.113.9', [device])
    const statuses = (await Promise.all(flood)).map((res) => res.status)
    assert.ok(
      statuses.every((status) => status === 303 || status === 503),
      statuses.join(' '),
    )
    assert.ok(statuses.includes(503), "one account's browsers hold few of the known places")
    assert.equal((await back).status, 303, "the owner's browser signs in")
  })

  it('returns a dev-checkout buyer only to this service, never to a success_url elsewhere', async () => {
    const user = await signUp(base, 'redirected')
    const checkout = await user.api<{ checkout_url: string }>('POST', '/api/billing/checkout', {
      plan: 'pro',
    })
    assert.equal(checkout.status, 201, JSON.stringify(checkout.json))
    const txn = new URL(checkout.json.checkout_url).searchParams.get('_ptxn') ?? ''
    const evil = 'https://evil.example/phish'
    const page = await fetch(
      `${base}/dev/paddle/checkout?_ptxn=${txn}&success_url=${encodeURIComponent(evil)}`,
    )
    assert.ok(!(await page.text()).includes('evil.example'), 'the page carries the foreign URL')
    const paid = await fetch(`${base}/dev/paddle/checkout/pay`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _ptxn: txn, success_url: evil }),
    })
    assert.ok(!(paid.headers.get('location') ?? '').includes('evil.example'), 'sent elsewhere')
    assert.ok(paid.status < 400, `the payment went through (${paid.status})`)
  })
})
