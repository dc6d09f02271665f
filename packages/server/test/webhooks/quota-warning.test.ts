/**
 * `quota.warning` end to end on SQLite always and PostgreSQL when TEST_DATABASE_URL is set: a
 * receiver on loopback gets exactly one warning per tunnel, metric and month, signed so that the
 * `standardwebhooks` library verifies it, even when 50 emits race for the same key and after a
 * "restart" (new connection, dispatcher and emitter on the same database); a new month fires
 * again. Malformed input is refused.
 */

import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { silentLogger } from '@burrow/protocol'
import { Webhook } from 'standardwebhooks'
import { nextResetOf, periodOf } from '../../src/quota/period.js'
import { openStore } from '../../src/store/open-store.js'
import type { Store } from '../../src/store/store.js'
import { emitQuotaWarning, quotaWarningId } from '../../src/webhooks/quota-warning.js'
import type { QuotaWarningInput } from '../../src/webhooks/quota-warning.js'
import { WebhookDispatcher } from '../../src/webhooks/webhook-dispatcher.js'
import { WebhookEndpointStore } from '../../src/webhooks/webhook-endpoint-store.js'
import type { CreatedWebhookEndpoint } from '../../src/webhooks/webhook-endpoint-store.js'
import { testBackends } from '../helpers/test-databases.js'
import type { TestDatabase } from '../helpers/test-databases.js'
import { startWebhookReceiver, webhookHeaders } from '../helpers/webhook-receiver.js'
import type { ReceivedWebhook, WebhookReceiver } from '../helpers/webhook-receiver.js'

for (const backend of testBackends()) {
  describe(`quota.warning on ${backend.name}`, () => {
    let database: TestDatabase
    let store: Store
    let receiver: WebhookReceiver
    let clock: number
    let accountId: string
    let tunnelId: string
    let endpoint: CreatedWebhookEndpoint
    const dispatchers: WebhookDispatcher[] = []
    const now = () => new Date(clock)

    beforeEach(async () => {
      clock = Date.now()
      database = await backend.create()
      store = await openStore(database.config)
      receiver = await startWebhookReceiver()
      accountId = (await store.createAccount({ email: 'a@example.com', slug: 'acme' })).id
      tunnelId = (await store.createTunnel({ accountId, name: 'docs' })).tunnel.id
      const endpoints = new WebhookEndpointStore(store.db, now, { allowPrivate: true })
      endpoint = await endpoints.create(accountId, { url: receiver.url })
    })

    afterEach(async () => {
      for (const d of dispatchers.splice(0)) await d.stop()
      await receiver.close()
      await store.close()
      await database.drop()
    })

    function dispatcher(db = store.db): WebhookDispatcher {
      const made = new WebhookDispatcher({ db, now, allowPrivate: true, log: silentLogger })
      dispatchers.push(made)
      return made
    }

    function warning(overrides: Partial<QuotaWarningInput> = {}): QuotaWarningInput {
      const at = now()
      return {
        accountId,
        tunnelId,
        tunnelName: 'docs',
        publicUrl: 'http://docs--acme.localhost:7100/mcp',
        metric: 'tool_calls',
        limit: 100_000,
        used: 80_000,
        period: periodOf(at),
        resetsAt: nextResetOf(at),
        now: at,
        ...overrides,
      }
    }

    /** The event in `request`, after the library checked its signature and timestamp. */
    function verified(request: ReceivedWebhook | undefined): unknown {
      assert.ok(request, 'no request received')
      return new Webhook(endpoint.secret).verify(request.body, webhookHeaders(request))
    }

    it('delivers one signed warning per metric per month, even when 50 emits race', async () => {
      const fired = await Promise.all(
        Array.from({ length: 50 }, () => emitQuotaWarning(store.db, warning())),
      )
      assert.equal(fired.filter(Boolean).length, 1)
      assert.equal(await dispatcher().runDue(), 1)
      assert.equal(receiver.received.length, 1)
      const period = periodOf(now())
      assert.equal(
        receiver.received[0]?.headers['webhook-id'],
        `qw_${tunnelId}_${period}_tool_calls`,
      )
      assert.deepEqual(verified(receiver.received[0]), {
        type: 'quota.warning',
        timestamp: now().toISOString(),
        data: {
          tunnel: {
            id: tunnelId,
            name: 'docs',
            public_url: 'http://docs--acme.localhost:7100/mcp',
          },
          metric: 'tool_calls',
          limit: 100_000,
          used: 80_000,
          percent: 80,
          period,
          resets_at: nextResetOf(now()).toISOString(),
        },
      })

      // The other metric of the same month is its own warning.
      const bandwidth = warning({ metric: 'bandwidth_bytes', limit: 5e9, used: 4_321_000_000 })
      const raced = await Promise.all(
        Array.from({ length: 50 }, () => emitQuotaWarning(store.db, bandwidth)),
      )
      assert.equal(raced.filter(Boolean).length, 1)
      assert.equal(await dispatcher().runDue(), 1)
      const event = verified(receiver.received[1]) as { data: { metric: string; percent: number } }
      assert.equal(event.data.metric, 'bandwidth_bytes')
      assert.equal(event.data.percent, 86)
      assert.equal(await dispatcher().runDue(), 0)
      assert.equal(receiver.received.length, 2)
    })

    it('does not fire again after a restart, and fires again in a new month', async () => {
      assert.equal(await emitQuotaWarning(store.db, warning()), true)
      assert.equal(await dispatcher().runDue(), 1)

      // "Restart": a new connection, emitter and dispatcher on the same database.
      for (const d of dispatchers.splice(0)) await d.stop()
      await store.close()
      store = await openStore(database.config)
      assert.equal(await emitQuotaWarning(store.db, warning({ used: 90_000 })), false)
      assert.equal(await dispatcher().runDue(), 0)
      assert.equal(receiver.received.length, 1)

      // The 1st of the next month: counters reset, and the warning may fire again.
      const first = periodOf(now())
      clock = nextResetOf(now()).getTime() + 3_600_000
      assert.notEqual(periodOf(now()), first)
      assert.equal(await emitQuotaWarning(store.db, warning()), true)
      assert.equal(await dispatcher().runDue(), 1)
      const [, second] = receiver.received
      assert.ok(second)
      const id = quotaWarningId(tunnelId, periodOf(now()), 'tool_calls')
      assert.equal(second.headers['webhook-id'], id)
      // Its timestamp is the moved clock's, beyond the library's ±5 min check of real time:
      // compare with the library's own signature instead.
      const at = new Date(Number(second.headers['webhook-timestamp']) * 1000)
      assert.equal(
        second.headers['webhook-signature'],
        new Webhook(endpoint.secret).sign(id, at, second.body),
      )
    })

    it("forgets a month's warnings once it is long past, a deleted account's with them", async () => {
      // Found by a hostile review: the keys were kept forever, and nothing ties them to the
      // tunnel, so a deleted account's tunnel ids stayed in the database with them.
      const warned = async () =>
        (await store.db.selectFrom('quota_warnings').select(['tunnel_id', 'period']).execute())
          .map((r) => `${r.tunnel_id} ${r.period}`)
          .sort()
      const old = periodOf(now())
      assert.equal(await emitQuotaWarning(store.db, warning()), true)
      await store.deleteAccount(accountId)
      accountId = (await store.createAccount({ email: 'b@example.com', slug: 'bee' })).id
      tunnelId = (await store.createTunnel({ accountId, name: 'docs' })).tunnel.id
      // Next month: last month's key is kept (a late count may still cross in it).
      clock = nextResetOf(now()).getTime() + 3_600_000
      const last = periodOf(now())
      assert.equal(await emitQuotaWarning(store.db, warning()), true)
      await dispatcher().runDue()
      assert.equal((await warned()).length, 2)
      // Two months on, both the deleted account's and the new tunnel's are gone.
      clock = nextResetOf(nextResetOf(now())).getTime() + 3_600_000
      await dispatcher().runDue()
      assert.deepEqual(await warned(), [])
      assert.notEqual(old, last)
    })

    it('records the warning even when no endpoint listens, so a later one does not get it', async () => {
      const endpoints = new WebhookEndpointStore(store.db, now, { allowPrivate: true })
      await endpoints.delete(accountId, endpoint.id)
      assert.equal(await emitQuotaWarning(store.db, warning()), true)
      endpoint = await endpoints.create(accountId, { url: receiver.url })
      assert.equal(await emitQuotaWarning(store.db, warning()), false)
      assert.equal(await dispatcher().runDue(), 0)
    })

    it('keeps warnings of different tunnels apart and fills missing names with null', async () => {
      const other = (await store.createTunnel({ accountId })).tunnel.id
      assert.equal(await emitQuotaWarning(store.db, warning()), true)
      assert.equal(
        await emitQuotaWarning(
          store.db,
          warning({ tunnelId: other, tunnelName: null, publicUrl: undefined }),
        ),
        true,
      )
      assert.equal(await dispatcher().runDue(), 2)
      const tunnels = receiver.received.map(
        (r) => (verified(r) as { data: { tunnel: unknown } }).data.tunnel,
      )
      assert.deepEqual(
        tunnels.find((t) => (t as { id: string }).id === other),
        { id: other, name: null, public_url: null },
      )
    })

    it('refuses malformed input and records nothing', async () => {
      const bad: [Partial<QuotaWarningInput>, RegExp][] = [
        [{ tunnelId: 'tun.1' }, /tunnel id "tun\.1"/],
        [{ tunnelId: '' }, /tunnel id ""/],
        [
          { metric: 'requests' as 'tool_calls' },
          /metric "requests" is not one of tool_calls, bandwidth_bytes/,
        ],
        [{ period: '2026-13' }, /period "2026-13" is not YYYY-MM/],
        [{ period: '2026-03-01' }, /is not YYYY-MM/],
        [{ limit: 0 }, /limit 0 is not a positive whole number/],
        [{ limit: 1.5 }, /limit 1\.5/],
        [{ used: -1 }, /used -1/],
        [{ used: Number.NaN }, /used NaN/],
        [{ resetsAt: new Date(Number.NaN) }, /valid dates/],
      ]
      for (const [overrides, message] of bad) {
        await assert.rejects(emitQuotaWarning(store.db, warning(overrides)), message)
      }
      assert.deepEqual(await store.db.selectFrom('quota_warnings').selectAll().execute(), [])
      assert.deepEqual(await store.db.selectFrom('webhook_deliveries').selectAll().execute(), [])
    })
  })
}
