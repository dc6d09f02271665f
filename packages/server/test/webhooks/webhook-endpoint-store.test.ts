/**
 * The webhook endpoint store on SQLite always and PostgreSQL when TEST_DATABASE_URL is set:
 * registration and its URL and event checks, the per-account cap (also under concurrent
 * creates), enable after disable, the delivery log, and account scoping: one account can never
 * see or change another's endpoints.
 */

import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { openStore } from '../../src/store/open-store.js'
import { StoreError } from '../../src/store/store-error.js'
import type { StoreErrorCode } from '../../src/store/store-error.js'
import type { Store } from '../../src/store/store.js'
import { enqueueWebhookEvent } from '../../src/webhooks/webhook-outbox.js'
import {
  MAX_ENDPOINTS_PER_ACCOUNT,
  WebhookEndpointStore,
} from '../../src/webhooks/webhook-endpoint-store.js'
import { testBackends } from '../helpers/test-databases.js'
import type { TestDatabase } from '../helpers/test-databases.js'

/** Assert a StoreError with `code` whose message contains `fragment`. */
async function refused(promise: Promise<unknown>, code: StoreErrorCode, fragment: string | RegExp) {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof StoreError, `expected StoreError, got ${String(error)}`)
    assert.equal(error.code, code)
    if (typeof fragment === 'string') assert.ok(error.message.includes(fragment), error.message)
    else assert.match(error.message, fragment)
    return true
  })
}

for (const backend of testBackends()) {
  describe(`webhook endpoint store on ${backend.name}`, () => {
    let database: TestDatabase
    let store: Store
    let endpoints: WebhookEndpointStore
    let clock: number
    let a: string
    let b: string

    beforeEach(async () => {
      clock = Date.parse('2026-03-04T05:06:07.089Z')
      database = await backend.create()
      store = await openStore(database.config)
      endpoints = new WebhookEndpointStore(store.db, () => new Date(clock))
      a = (await store.createAccount({ email: 'a@example.com', slug: 'acme' })).id
      b = (await store.createAccount({ email: 'b@example.com', slug: 'bravo' })).id
    })

    afterEach(async () => {
      await store.close()
      await database.drop()
    })

    it('registers an endpoint with its own secret, shown by create and revealSecret only', async () => {
      const created = await endpoints.create(a, { url: ' https://Hooks.Example.com/burrow?x=1 ' })
      assert.match(created.id, /^we_[0-9a-f]{20}$/)
      assert.match(created.secret, /^whsec_[A-Za-z0-9+/]{43}=$/)
      const { secret, ...endpoint } = created
      assert.deepEqual(endpoint, {
        id: created.id,
        accountId: a,
        url: 'https://hooks.example.com/burrow?x=1',
        events: ['quota.warning', 'tool.changed'],
        createdAt: new Date(clock),
        disabledAt: null,
        disabledReason: null,
        consecutiveFailures: 0,
      })
      assert.deepEqual(await endpoints.get(a, created.id), endpoint)
      assert.deepEqual(await endpoints.list(a), [endpoint])
      assert.equal(await endpoints.revealSecret(a, created.id), secret)
      const other = await endpoints.create(a, { url: 'https://hooks.example.com/burrow?x=1' })
      assert.notEqual(other.secret, secret)
    })

    it('lists oldest first and accepts an explicit, repeated event list', async () => {
      const first = await endpoints.create(a, { url: 'https://one.example.com/' })
      clock += 1000
      const second = await endpoints.create(a, {
        url: 'http://two.example.com:8080/h',
        events: ['quota.warning', 'quota.warning'],
      })
      assert.deepEqual(second.events, ['quota.warning'])
      assert.deepEqual(
        (await endpoints.list(a)).map((e) => e.id),
        [first.id, second.id],
      )
    })

    it('refuses bad URLs and says what is wrong', async () => {
      const bad: [string, string | RegExp][] = [
        ['', 'webhook URL is empty'],
        ['   ', 'webhook URL is empty'],
        ['not a url', 'is not a URL'],
        ['ftp://example.com/x', 'uses ftp:; only http:// and https://'],
        ['javascript:alert(1)', 'uses javascript:'],
        ['https://example.com/x#frag', 'has a #fragment'],
        [`https://example.com/${'a'.repeat(2000)}`, /is 2020 characters long; at most 2000/],
        ['https://example.com/ä'.padEnd(1999, 'ä'), 'longer than 2000 characters once encoded'],
      ]
      for (const [url, fragment] of bad) {
        await refused(endpoints.create(a, { url }), 'invalid', fragment)
      }
      assert.deepEqual(await endpoints.list(a), [])
    })

    it('refuses credentials in the URL without repeating them', async () => {
      await assert.rejects(
        endpoints.create(a, { url: 'https://user:hunter2@example.com/x' }),
        (error: unknown) => {
          assert.ok(error instanceof StoreError && error.code === 'invalid')
          assert.match(error.message, /user name or password/)
          assert.ok(!error.message.includes('hunter2'))
          return true
        },
      )
    })

    it('refuses private and loopback literals and localhost unless the operator allows them', async () => {
      const cases: [string, string][] = [
        ['http://127.0.0.1:9000/x', '127.0.0.1 is a loopback address'],
        ['http://2130706433/x', '127.0.0.1 is a loopback address'],
        ['http://[::1]/x', '::1 is a loopback address'],
        ['http://[::ffff:10.0.0.1]/x', 'is a private address'],
        ['https://192.168.1.20/x', '192.168.1.20 is a private address'],
        ['http://localhost:3000/x', 'localhost is a loopback name'],
        ['http://169.254.169.254/latest', 'cloud metadata service address'],
      ]
      for (const [url, what] of cases) {
        await refused(endpoints.create(a, { url }), 'invalid', what)
      }
      const allowing = new WebhookEndpointStore(store.db, () => new Date(clock), {
        allowPrivate: true,
      })
      await allowing.create(a, { url: 'http://127.0.0.1:9000/x' })
      await allowing.create(a, { url: 'http://localhost:3000/x' })
      await refused(
        allowing.create(a, { url: 'http://169.254.169.254/latest' }),
        'invalid',
        'webhooks are never sent there',
      )
    })

    it('refuses unknown and empty event lists', async () => {
      await refused(
        endpoints.create(a, { url: 'https://x.example.com/', events: ['quota.exceeded'] }),
        'invalid',
        'event type "quota.exceeded" is not one of quota.warning, tool.changed',
      )
      await refused(
        endpoints.create(a, { url: 'https://x.example.com/', events: [] }),
        'invalid',
        'at least one event type',
      )
    })

    it('refuses an unknown account', async () => {
      await refused(
        endpoints.create('acc_nope', { url: 'https://x.example.com/' }),
        'not_found',
        'acc_nope',
      )
    })

    it(`caps an account at ${MAX_ENDPOINTS_PER_ACCOUNT} endpoints, also under concurrent creates`, async () => {
      const results = await Promise.allSettled(
        Array.from({ length: MAX_ENDPOINTS_PER_ACCOUNT + 5 }, (_, i) =>
          endpoints.create(a, { url: `https://x.example.com/${i}` }),
        ),
      )
      const fulfilled = results.filter((r) => r.status === 'fulfilled')
      const rejected = results.filter((r) => r.status === 'rejected')
      assert.equal(fulfilled.length, MAX_ENDPOINTS_PER_ACCOUNT)
      for (const r of rejected) {
        assert.ok(r.reason instanceof StoreError && r.reason.code === 'conflict')
        assert.match(r.reason.message, /already has 10 webhook endpoints.*delete one first/)
      }
      assert.equal((await endpoints.list(a)).length, MAX_ENDPOINTS_PER_ACCOUNT)
      // The cap is per account.
      await endpoints.create(b, { url: 'https://x.example.com/b' })
      const [oldest] = await endpoints.list(a)
      await endpoints.delete(a, oldest?.id ?? '')
      await endpoints.create(a, { url: 'https://x.example.com/again' })
    })

    it("never shows or changes another account's endpoint", async () => {
      const mine = await endpoints.create(a, { url: 'https://a.example.com/' })
      await store.db
        .updateTable('webhook_endpoints')
        .set({ disabled_at: new Date(clock).toISOString(), disabled_reason: 'test' })
        .execute()
      const notFound = `webhook endpoint "${mine.id}" not found in this account`
      assert.deepEqual(await endpoints.list(b), [])
      await refused(endpoints.get(b, mine.id), 'not_found', notFound)
      await refused(endpoints.revealSecret(b, mine.id), 'not_found', notFound)
      await refused(endpoints.enable(b, mine.id), 'not_found', notFound)
      await refused(endpoints.deliveries(b, mine.id), 'not_found', notFound)
      await refused(endpoints.delete(b, mine.id), 'not_found', notFound)
      const still = await endpoints.get(a, mine.id)
      assert.equal(still.disabledReason, 'test')
      await refused(endpoints.get(a, 'we_missing'), 'not_found', 'we_missing')
    })

    it('deletes an endpoint with its delivery log', async () => {
      const endpoint = await endpoints.create(a, { url: 'https://a.example.com/' })
      await enqueueWebhookEvent(store.db, {
        accountId: a,
        type: 'quota.warning',
        data: {},
        occurredAt: new Date(clock),
      })
      await endpoints.delete(a, endpoint.id)
      assert.deepEqual(await endpoints.list(a), [])
      assert.deepEqual(await store.db.selectFrom('webhook_deliveries').selectAll().execute(), [])
      await refused(endpoints.delete(a, endpoint.id), 'not_found', endpoint.id)
    })

    it('enables a disabled endpoint again with its failure count reset', async () => {
      const endpoint = await endpoints.create(a, { url: 'https://a.example.com/' })
      await store.db
        .updateTable('webhook_endpoints')
        .set({
          disabled_at: new Date(clock).toISOString(),
          disabled_reason: 'disabled after 8 failed attempts in a row; last: HTTP 500',
          consecutive_failures: 8,
        })
        .execute()
      const disabled = await endpoints.get(a, endpoint.id)
      assert.deepEqual(disabled.disabledAt, new Date(clock))
      assert.match(disabled.disabledReason ?? '', /8 failed attempts/)
      const enabled = await endpoints.enable(a, endpoint.id)
      assert.equal(enabled.disabledAt, null)
      assert.equal(enabled.disabledReason, null)
      assert.equal(enabled.consecutiveFailures, 0)
    })

    it('lists the delivery log newest first, at most `limit`, for this endpoint only', async () => {
      const one = await endpoints.create(a, { url: 'https://one.example.com/' })
      for (const n of [1, 2, 3]) {
        clock += 1000
        await enqueueWebhookEvent(store.db, {
          accountId: a,
          type: 'quota.warning',
          id: `evt_${n}`,
          data: { n },
          occurredAt: new Date(clock),
        })
      }
      const two = await endpoints.create(a, { url: 'https://two.example.com/' })
      const log = await endpoints.deliveries(a, one.id)
      assert.deepEqual(
        log.map((d) => d.id),
        ['evt_3', 'evt_2', 'evt_1'],
      )
      assert.deepEqual(log[0], {
        id: 'evt_3',
        endpointId: one.id,
        type: 'quota.warning',
        status: 'pending',
        attempts: 0,
        createdAt: new Date(clock),
        lastAttemptAt: null,
        lastStatus: null,
        lastError: null,
        nextAttemptAt: new Date(clock),
        payload: JSON.stringify({
          type: 'quota.warning',
          timestamp: new Date(clock).toISOString(),
          data: { n: 3 },
        }),
      })
      assert.deepEqual(
        (await endpoints.deliveries(a, one.id, 2)).map((d) => d.id),
        ['evt_3', 'evt_2'],
      )
      assert.equal((await endpoints.deliveries(a, one.id, 0)).length, 1)
      assert.deepEqual(await endpoints.deliveries(a, two.id), [])
    })
  })
}
