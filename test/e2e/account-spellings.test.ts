/**
 * Addresses and return paths at sign-up and sign-in (found by a hostile review): one mailbox in
 * two spellings (a full-width domain, which the mail library sends to the ASCII one) made two
 * accounts; an email holding U+0000 made PostgreSQL fail the sign-in with a 500; a `next=` with a
 * character a Location header cannot carry made sign-in answer 500.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { startService, type Service } from '../helpers/stack.js'
import { formPost, signUp } from '../helpers/web-client.js'
import {
  testBackends,
  type TestDatabase,
} from '../../packages/server/test/helpers/test-databases.js'

for (const backend of testBackends()) {
  describe(`addresses and return paths at sign-in, on ${backend.name}`, () => {
    let service: Service
    let database: TestDatabase
    let base: string

    before(async () => {
      database = await backend.create()
      service = await startService({
        ...(database.config.databaseUrl
          ? { BURROW_DATABASE_URL: database.config.databaseUrl }
          : {}),
      })
      base = `http://127.0.0.1:${service.port}`
    })

    after(async () => {
      await service?.close()
      await database?.drop()
    })

    it('answers a sign-in whose email holds U+0000 with the form, not a 500', async () => {
      const res = await formPost(
        base,
        '/signin',
        { email: 'nul\u0000@example.com', password: 'whatever guess 1' },
        '192.0.2.201',
      )
      const body = await res.text()
      assert.equal(res.status, 401, `status ${res.status}: ${body.slice(0, 200)}`)
    })

    it('refuses a second account for a mailbox that has one (full-width domain)', async () => {
      const first = await formPost(
        base,
        '/signup',
        { email: 'bob@example.com', slug: 'bobfirst', password: 'correct horse battery' },
        '192.0.2.202',
      )
      assert.equal(first.status, 303, await first.text())
      // Full-width letters: the SMTP mailer (IDNA, UTS #46) sends this address's mail to
      // bob@example.com.
      const second = await formPost(
        base,
        '/signup',
        {
          email: 'bob@\uFF45\uFF58\uFF41\uFF4D\uFF50\uFF4C\uFF45.com',
          slug: 'bobsecond',
          password: 'correct horse battery',
        },
        '192.0.2.203',
      )
      assert.equal(
        second.status,
        409,
        `a second account for bob@example.com's mailbox: ${second.status}`,
      )
    })

    it('answers a signed-in /signin?next= with a non-Latin-1 character without a 500', async () => {
      const user = await signUp(base, `nexty${backend.name}`)
      const res = await fetch(
        `${base}/signin?next=${encodeURIComponent('/oauth/authorize?x=\u20AC')}`,
        {
          headers: { cookie: user.cookie },
          redirect: 'manual',
        },
      )
      assert.equal(res.status, 302, `GET /signin?next=…€ with a session: ${res.status}`)
      assert.equal(res.headers.get('location'), '/oauth/authorize?x=%E2%82%AC')
    })

    it('answers a sign-in posting next= with a control character without a 500', async () => {
      await formPost(
        base,
        '/signup',
        {
          email: `nextpost-${backend.name}@example.com`,
          slug: `np${backend.name}`,
          password: 'correct horse battery',
        },
        '192.0.2.204',
      )
      const res = await formPost(
        base,
        '/signin',
        {
          email: `nextpost-${backend.name}@example.com`,
          password: 'correct horse battery',
          next: '/oauth/authorize?client_id=x\u0001',
        },
        '192.0.2.205',
      )
      assert.ok(res.status < 500, `POST /signin with next=…\\x01: ${res.status}`)
    })
  })
}
