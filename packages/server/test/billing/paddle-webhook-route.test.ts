/**
 * Paddle webhooks through the real route on a real socket, into a real store (SQLite, and
 * PostgreSQL when TEST_DATABASE_URL is set): a signed event moves an account from Free to Pro
 * and tells the app; forged, stale, malformed and oversized deliveries are refused and change
 * nothing; duplicates and out-of-order events are harmless; a cancellation keeps Pro until the
 * period ends (then Free, lazily and by the sweep); a failed payment keeps paid limits to the
 * period end; a subscription that ends unpaid is Free at once.
 */

import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, beforeEach, describe, it } from 'node:test'
import type { BillingConfig } from '../../src/billing/billing-config.js'
import { BillingService } from '../../src/billing/billing-service.js'
import { signPaddle } from '../../src/billing/paddle-signature.js'
import { PADDLE_WEBHOOK_PATH, PaddleWebhookRoute } from '../../src/billing/paddle-webhook-route.js'
import { openStore } from '../../src/store/open-store.js'
import type { Store } from '../../src/store/store.js'
import { eventBody, subscriptionData, TEST_PRICES } from '../helpers/paddle-events.js'
import type { SubscriptionFields } from '../helpers/paddle-events.js'
import { testBackends } from '../helpers/test-databases.js'
import type { TestDatabase } from '../helpers/test-databases.js'

const SECRET = 'pdl_ntfset_01route_test'
const NEXT_SECRET = 'pdl_ntfset_01route_next'
const T0 = new Date('2026-03-04T00:00:00.000Z')
const PERIOD_END = new Date('2026-04-04T00:00:00.000Z')
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000)

const CONFIG: BillingConfig = {
  provider: 'paddle',
  // Never called: webhooks need no API.
  apiUrl: 'http://127.0.0.1:9',
  apiKey: 'pdl_test_key',
  webhookSecrets: [SECRET, NEXT_SECRET],
  prices: TEST_PRICES,
}

for (const backend of testBackends()) {
  describe(`POST ${PADDLE_WEBHOOK_PATH} on ${backend.name}`, () => {
    let database: TestDatabase
    let store: Store
    let billing: BillingService
    let server: Server
    let url: string
    let now: Date
    let accountId: string
    let changed: string[]

    /** A subscription event body for the test account. */
    const body = (
      type: string,
      fields: SubscriptionFields & { occurredAt?: Date; eventId?: string } = {},
    ): string =>
      JSON.stringify(
        eventBody(type, subscriptionData({ accountId, periodEndsAt: PERIOD_END, ...fields }), {
          ...(fields.eventId ? { eventId: fields.eventId } : {}),
          occurredAt: fields.occurredAt ?? now,
        }),
      )
    /** POST a body signed now with `secret` (or with the header given). */
    const post = async (
      raw: string | Buffer,
      opts: { secret?: string; header?: string | null; ts?: number; method?: string } = {},
    ) => {
      const ts = opts.ts ?? Math.floor(now.getTime() / 1000)
      const header =
        opts.header === undefined ? signPaddle(opts.secret ?? SECRET, ts, raw) : opts.header
      const res = await fetch(url, {
        method: opts.method ?? 'POST',
        headers: {
          'content-type': 'application/json',
          ...(header === null ? {} : { 'paddle-signature': header }),
        },
        ...(opts.method === 'GET' ? {} : { body: raw }),
      })
      return { status: res.status, json: (await res.json()) as Record<string, unknown> }
    }
    const send = async (type: string, fields: Parameters<typeof body>[1] = {}) => {
      const res = await post(body(type, fields))
      assert.equal(res.status, 200, JSON.stringify(res.json))
      return res.json.outcome
    }
    const plan = async () => (await billing.status(accountId)).plan
    const eventCount = async () =>
      Number(
        (
          await store.db
            .selectFrom('billing_events')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      )

    beforeEach(async () => {
      database = await backend.create()
      now = T0
      changed = []
      store = await openStore(database.config, { now: () => now })
      billing = new BillingService({
        config: CONFIG,
        db: store.db,
        now: () => now,
        onPlanChanged: (id) => void changed.push(id),
      })
      accountId = (await store.createAccount({ email: 'ann@example.com', slug: 'ann' })).id
      const route = new PaddleWebhookRoute(billing)
      server = createServer((req, res) => void route.handle(req, res))
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${PADDLE_WEBHOOK_PATH}`
    })

    afterEach(async () => {
      billing.stop()
      await new Promise((resolve) => server.close(resolve))
      await store.close()
      await database.drop()
    })

    it('upgrades Free to Pro on a signed subscription.created and tells the app', async () => {
      assert.equal(await plan(), 'free')
      const res = await post(body('subscription.created'))
      assert.deepEqual(res, { status: 200, json: { ok: true, outcome: 'applied' } })
      assert.equal(await plan(), 'pro')
      const status = await billing.status(accountId)
      assert.equal(status.state, 'paid')
      assert.equal(status.subscription?.cycle, 'monthly')
      assert.deepEqual(status.renewsAt, PERIOD_END)
      assert.deepEqual(changed, [accountId])
      const account = await store.getAccountById(accountId)
      assert.equal(account?.plan, 'pro')
    })

    it('accepts a webhook signed with the second configured secret (rotation)', async () => {
      const res = await post(body('subscription.created', { priceId: TEST_PRICES.scale_annual }), {
        secret: NEXT_SECRET,
      })
      assert.equal(res.status, 200)
      assert.equal(await plan(), 'scale')
    })

    it('refuses forged, altered, stale and unsigned webhooks with 401 and changes nothing', async () => {
      const raw = body('subscription.created')
      const ts = Math.floor(now.getTime() / 1000)
      const refusals = [
        await post(raw, { secret: 'pdl_ntfset_attacker' }),
        await post(raw, { header: signPaddle(SECRET, ts, raw.replace('acc_', 'acc_x')) }),
        await post(raw, { ts: ts - 301 }),
        await post(raw, { ts: ts + 301 }),
        await post(raw, { header: null }),
        await post(raw, { header: 'ts=1;h1=nothex' }),
      ]
      for (const res of refusals) {
        assert.equal(res.status, 401, JSON.stringify(res.json))
        assert.equal(res.json.error, 'invalid_signature')
        assert.equal(typeof res.json.message, 'string')
      }
      assert.match(String(refusals[2]!.json.message), /301 s old/)
      assert.equal(await plan(), 'free')
      assert.equal(await eventCount(), 0)
      assert.deepEqual(changed, [])
    })

    it('refuses a signed but malformed body with 400 and changes nothing', async () => {
      for (const raw of [
        '{"event_id":',
        JSON.stringify({ event_type: 'subscription.created' }),
        body('subscription.created', { status: 'unpaid' }),
      ]) {
        const res = await post(raw)
        assert.equal(res.status, 400, raw)
        assert.equal(res.json.error, 'malformed_event')
      }
      assert.equal(await eventCount(), 0)
      assert.equal(await plan(), 'free')
    })

    it('refuses an oversized body with 413 and a GET with 405', async () => {
      const huge = JSON.stringify({
        ...JSON.parse(body('subscription.created')),
        pad: 'x'.repeat(70_000),
      })
      const big = await post(huge)
      assert.equal(big.status, 413)
      assert.equal(big.json.error, 'payload_too_large')
      const get = await post('', { method: 'GET' })
      assert.equal(get.status, 405)
      assert.equal(await eventCount(), 0)
    })

    it('answers 422 for a price burrowd does not know, recording nothing so a retry can apply it', async () => {
      const raw = body('subscription.created', { priceId: 'pri_unconfigured' })
      const res = await post(raw)
      assert.equal(res.status, 422)
      assert.equal(res.json.error, 'unknown_price')
      assert.equal(await eventCount(), 0)
    })

    it('answers a duplicate 200 and changes nothing', async () => {
      const raw = body('subscription.created', { eventId: 'evt_twice' })
      assert.equal((await post(raw)).json.outcome, 'applied')
      await store.db
        .updateTable('accounts')
        .set({ plan: 'free' })
        .where('id', '=', accountId)
        .execute()
      const again = await post(raw)
      assert.deepEqual(again, { status: 200, json: { ok: true, outcome: 'duplicate' } })
      assert.equal(await plan(), 'free', 'the redelivery did not re-apply')
      assert.deepEqual(changed, [accountId])
    })

    it('ignores an older subscription.updated arriving after a newer one', async () => {
      await send('subscription.created', { occurredAt: at(0) })
      await send('subscription.updated', { occurredAt: at(10), priceId: TEST_PRICES.scale_monthly })
      const late = await post(
        body('subscription.updated', { occurredAt: at(5), priceId: TEST_PRICES.pro_annual }),
      )
      assert.deepEqual(late.json, { ok: true, outcome: 'stale' })
      assert.equal(await plan(), 'scale')
      assert.equal((await billing.status(accountId)).subscription?.cycle, 'monthly')
    })

    it('records transaction events as ignored', async () => {
      const raw = JSON.stringify(eventBody('transaction.completed', { id: 'txn_1' }))
      assert.deepEqual((await post(raw)).json, { ok: true, outcome: 'ignored' })
      assert.equal(await eventCount(), 1)
    })

    it('keeps Pro after a cancellation until the period ends, then Free (lazily and by the sweep)', async () => {
      await send('subscription.created', { occurredAt: at(0) })
      now = at(60)
      assert.equal(await send('subscription.updated', { scheduledCancelAt: PERIOD_END }), 'applied')
      let status = await billing.status(accountId)
      assert.equal(status.plan, 'pro')
      assert.equal(status.state, 'paid_until')
      assert.deepEqual(status.endsAt, PERIOD_END, 'shown as "cancels on"')
      assert.equal(status.renewsAt, null)

      now = new Date(PERIOD_END.getTime() - 1)
      assert.equal(await plan(), 'pro')
      assert.deepEqual(await billing.expireDue(), [])

      now = PERIOD_END
      status = await billing.status(accountId)
      assert.equal(status.plan, 'free', 'the effective plan is Free before any sweep or webhook')
      assert.equal(status.state, 'free')
      changed = []
      assert.deepEqual(await billing.expireDue(), [accountId])
      assert.deepEqual(changed, [accountId])
      assert.equal((await store.getAccountById(accountId))?.plan, 'free', 'the stored plan too')

      // Paddle's own subscription.canceled at the period end changes nothing more.
      assert.equal(
        await send('subscription.canceled', { status: 'canceled', periodEndsAt: null }),
        'applied',
      )
      assert.equal(await plan(), 'free')
    })

    it('the expiry sweep runs on its own timer', async () => {
      await send('subscription.updated', { scheduledCancelAt: PERIOD_END })
      now = PERIOD_END
      changed = []
      billing.startExpirySweep(5)
      while (changed.length === 0) await new Promise((resolve) => setTimeout(resolve, 5))
      billing.stop()
      assert.deepEqual(changed, [accountId])
      assert.equal((await store.getAccountById(accountId))?.plan, 'free')
    })

    it('keeps paid limits while a payment is past due, until the period ends', async () => {
      await send('subscription.created', { occurredAt: at(0) })
      now = at(10)
      assert.equal(await send('subscription.past_due', { status: 'past_due' }), 'applied')
      const status = await billing.status(accountId)
      assert.equal(status.state, 'past_due', 'the page shows "payment failed"')
      assert.equal(status.plan, 'pro')
      assert.deepEqual(status.endsAt, PERIOD_END)

      // The payment is retried and succeeds: paid, no end.
      now = at(20)
      await send('subscription.updated', { status: 'active' })
      assert.equal((await billing.status(accountId)).state, 'paid')
      assert.equal((await billing.status(accountId)).endsAt, null)

      // It fails again and nothing more arrives: Free once the period is over.
      now = at(30)
      await send('subscription.past_due', { status: 'past_due' })
      now = PERIOD_END
      assert.equal(await plan(), 'free')
    })

    it('moves a subscription that ends unpaid (canceled) to Free at once', async () => {
      await send('subscription.created', { occurredAt: at(0) })
      await send('subscription.past_due', { status: 'past_due', occurredAt: at(10) })
      now = at(20)
      changed = []
      assert.equal(
        await send('subscription.canceled', { status: 'canceled', periodEndsAt: null }),
        'applied',
      )
      const status = await billing.status(accountId)
      assert.equal(status.plan, 'free')
      assert.equal(status.state, 'free')
      assert.equal((await store.getAccountById(accountId))?.plan, 'free')
      assert.deepEqual(changed, [accountId])
    })

    it('moves a paused subscription to Free at once', async () => {
      await send('subscription.created', { occurredAt: at(0) })
      now = at(5)
      await send('subscription.paused', { status: 'paused', periodEndsAt: null })
      assert.equal(await plan(), 'free')
    })
  })
}
