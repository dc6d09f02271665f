/**
 * Stopping the dispatcher while its name lookups are held (found by a review): a lookup still
 * waiting for a place when burrowd stopped ran afterwards, for nobody, once a place came free,
 * up to 10 s later. The resolver is injected (a lookup that answers only when the test says),
 * the database real (SQLite), the receiver's names never looked up outside.
 */
import assert from 'node:assert/strict'
import type { LookupAddress } from 'node:dns'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { silentLogger } from '@burrow/protocol'
import { openStore } from '../../src/store/open-store.js'
import type { Store } from '../../src/store/store.js'
import { boundedResolve, type LookupAll } from '../../src/webhooks/system-resolve.js'
import { WebhookDispatcher } from '../../src/webhooks/webhook-dispatcher.js'
import { WebhookEndpointStore } from '../../src/webhooks/webhook-endpoint-store.js'
import { enqueueWebhookEvent } from '../../src/webhooks/webhook-outbox.js'
import { testBackends, type TestDatabase } from '../helpers/test-databases.js'

const backend = testBackends()[0]!

describe('stopping the webhook dispatcher', () => {
  let database: TestDatabase
  let store: Store

  beforeEach(async () => {
    database = await backend.create()
    store = await openStore(database.config)
  })

  afterEach(async () => {
    await store.close()
    await database.drop()
  })

  it('drops the lookups waiting for a place, returns, and runs none of them afterwards', async () => {
    const clock = Date.parse('2026-05-06T07:08:09.000Z')
    const now = () => new Date(clock)
    const endpoints = new WebhookEndpointStore(store.db, now, { allowPrivate: true })
    const accounts = []
    for (const slug of ['aaa', 'bbb', 'ccc']) {
      const account = await store.createAccount({ email: `${slug}@example.com`, slug })
      accounts.push(account.id)
      await endpoints.create(account.id, { url: `http://hooks.${slug}.test:9/hooks` })
      await enqueueWebhookEvent(store.db, {
        accountId: account.id,
        type: 'quota.warning',
        id: `qw_${slug}`,
        data: {},
        occurredAt: now(),
      })
    }
    // One place, held by a lookup the test answers only after the stop.
    const asked: string[] = []
    const answers: ((error: Error | null, found: LookupAddress[]) => void)[] = []
    const lookup: LookupAll = (hostname, _options, callback) => {
      asked.push(hostname)
      answers.push(callback)
    }
    const bounded = boundedResolve(lookup, 1)
    const queued: string[] = []
    const dispatcher = new WebhookDispatcher({
      db: store.db,
      allowPrivate: true,
      log: silentLogger,
      now,
      random: () => 0.5,
      resolve: (hostname, who, signal) => {
        queued.push(hostname)
        return bounded(hostname, who, signal)
      },
    })
    dispatcher.start(60_000)
    while (queued.length < accounts.length) await new Promise((r) => setImmediate(r))
    assert.equal(asked.length, 1, 'one lookup runs, the others wait for its place')
    await dispatcher.stop()
    // The running lookup ends only now: its place goes to nobody.
    answers[0]!(null, [{ address: '127.0.0.1', family: 4 }])
    await new Promise((r) => setImmediate(r))
    assert.equal(asked.length, 1, 'no lookup ran after the stop')
    for (const accountId of accounts) {
      const [endpoint] = await endpoints.list(accountId)
      const [entry] = await endpoints.deliveries(accountId, endpoint!.id)
      assert.equal(entry?.status, 'pending', 'given back for the next start')
      assert.equal(entry?.attempts, 0)
    }
  })
})
