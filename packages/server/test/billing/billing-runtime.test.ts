/**
 * Billing as burrowd mounts it, on one real port: with the dev provider the stand-in answers at
 * /dev/paddle and its webhooks come back to /webhooks/paddle on the same port, so a checkout
 * paid there makes the account Pro; its key and secret are kept in the settings table. With
 * Paddle configured nothing is mounted at /dev/paddle.
 */

import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { silentLogger } from '@burrow/protocol'
import { startBilling } from '../../src/billing/billing-runtime.js'
import type { BillingRuntime } from '../../src/billing/billing-runtime.js'
import { openStore } from '../../src/store/open-store.js'
import type { Store } from '../../src/store/store.js'
import { TEST_PRICES } from '../helpers/paddle-events.js'
import { testBackends } from '../helpers/test-databases.js'
import type { TestDatabase } from '../helpers/test-databases.js'

for (const backend of testBackends()) {
  describe(`startBilling on ${backend.name}`, () => {
    let database: TestDatabase
    let store: Store
    let server: Server
    let selfUrl: string
    let runtime: BillingRuntime | undefined
    let changed: string[]

    beforeEach(async () => {
      database = await backend.create()
      store = await openStore(database.config)
      changed = []
      server = createServer((req, res) => {
        if (runtime?.handles(req.url ?? '/')) void runtime.handle(req, res)
        else res.writeHead(404).end('app')
      })
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
      selfUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    })

    afterEach(async () => {
      runtime?.stop()
      await runtime?.standIn?.idle()
      runtime = undefined
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
      await store.close()
      await database.drop()
    })

    it('dev provider: checkout at /dev/paddle, webhooks to itself, account on Pro', async () => {
      runtime = await startBilling({
        settings: { provider: 'dev' },
        store,
        selfUrl: selfUrl + '/',
        onPlanChanged: (id) => void changed.push(id),
        log: silentLogger,
      })
      assert.ok(runtime.handles('/webhooks/paddle'))
      assert.ok(runtime.handles('/dev/paddle/checkout?_ptxn=txn_1'))
      assert.ok(!runtime.handles('/dashboard'))
      assert.ok(!runtime.handles('/billing/pay'), 'the Paddle.js page is for Paddle only')

      const account = await store.createAccount({ email: 'ann@example.com', slug: 'ann' })
      const link = await runtime.service.checkoutUrl(
        account,
        'scale',
        'monthly',
        `${selfUrl}/dashboard/billing`,
      )
      assert.ok(link.startsWith(`${selfUrl}/dev/paddle/checkout?_ptxn=txn_`), link)
      const page = await fetch(link)
      assert.equal(page.status, 200)
      assert.match(await page.text(), /\$39\.00 per month/)
      const txn = new URL(link).searchParams.get('_ptxn')!
      const paid = await fetch(`${selfUrl}/dev/paddle/checkout/pay`, {
        method: 'POST',
        body: new URLSearchParams({ _ptxn: txn, success_url: `${selfUrl}/dashboard/billing` }),
        redirect: 'manual',
      })
      assert.equal(paid.status, 303)
      assert.equal(paid.headers.get('location'), `${selfUrl}/dashboard/billing`)
      assert.ok(runtime.standIn!.webhooks.every((w) => w.delivered && w.lastStatus === 200))
      assert.equal((await runtime.service.status(account.id)).plan, 'scale')
      assert.equal((await store.getAccountById(account.id))?.plan, 'scale')
      assert.deepEqual(changed, [account.id, account.id])
    })

    it('dev provider: keeps its generated key and secret in the settings table', async () => {
      const first = await startBilling({
        settings: { provider: 'dev' },
        store,
        selfUrl,
        log: silentLogger,
      })
      first.stop()
      runtime = await startBilling({
        settings: { provider: 'dev' },
        store,
        selfUrl,
        log: silentLogger,
      })
      assert.equal(runtime.service.config.apiKey, first.service.config.apiKey)
      assert.deepEqual(runtime.service.config.webhookSecrets, first.service.config.webhookSecrets)
      assert.match(runtime.service.config.webhookSecrets[0]!, /^pdl_ntfset_dev_[A-Za-z0-9_-]{32}$/)
      assert.equal(await store.getSetting('dev_paddle_api_key'), runtime.service.config.apiKey)
      assert.equal(runtime.service.config.apiUrl, `${selfUrl}/dev/paddle`)
      assert.equal(runtime.service.config.prices.pro_monthly, 'pri_dev_pro_monthly')
    })

    it('a plan taken through the dev provider ends once burrowd takes payments through Paddle', async () => {
      // While the operator ran the dev provider (no money moves), anyone could take Scale.
      const dev = await startBilling({
        settings: { provider: 'dev' },
        store,
        selfUrl,
        log: silentLogger,
      })
      runtime = dev
      const account = await store.createAccount({ email: 'ann@example.com', slug: 'ann' })
      const link = await dev.service.checkoutUrl(account, 'scale', 'annual', `${selfUrl}/x`)
      const txn = new URL(link).searchParams.get('_ptxn')!
      await fetch(`${selfUrl}/dev/paddle/checkout/pay`, {
        method: 'POST',
        body: new URLSearchParams({ _ptxn: txn, success_url: `${selfUrl}/x` }),
        redirect: 'manual',
      })
      assert.equal((await store.getAccountById(account.id))?.plan, 'scale')
      dev.stop()
      await dev.standIn?.idle()
      // The operator goes live with Paddle: no Paddle event will ever end that subscription, and
      // the dashboard cannot cancel it (another provider's).
      runtime = await startBilling({
        settings: {
          provider: 'paddle',
          apiUrl: 'https://sandbox-api.paddle.com',
          apiKey: 'pdl_sdbx_key',
          webhookSecrets: ['pdl_ntfset_1'],
          prices: TEST_PRICES,
          clientToken: 'test_0a1b2c',
        },
        store,
        selfUrl,
        onPlanChanged: (id) => void changed.push(id),
        log: silentLogger,
      })
      await runtime.service.expireDue()
      assert.equal((await store.getAccountById(account.id))?.plan, 'free')
      const status = await runtime.service.status(account.id)
      assert.equal(status.plan, 'free')
      assert.equal(status.state, 'free')
      assert.deepEqual(changed, [account.id])
    })

    it('refuses to fall back to the dev provider on a database that holds Paddle subscriptions', async () => {
      // Paddle took payments; then a redeploy lost BURROW_PADDLE_API_KEY. The fallback would let
      // anyone subscribe for nothing and refuse Paddle's webhooks (cancellations, chargebacks).
      const account = await store.createAccount({ email: 'ann@example.com', slug: 'ann' })
      await store.db
        .insertInto('subscriptions')
        .values({
          account_id: account.id,
          provider: 'paddle',
          subscription_id: 'sub_paid',
          customer_id: 'ctm_ann',
          plan: 'pro',
          cycle: 'monthly',
          status: 'active',
          state: 'paid',
          period_ends_at: null,
          cancels_at: null,
          synced_at: new Date().toISOString(),
          updated_at: new Date().toISOString(),
        })
        .execute()
      await assert.rejects(
        startBilling({ settings: { provider: 'dev' }, store, selfUrl, log: silentLogger }),
        /BURROW_PADDLE_API_KEY is not set.*subscriptions made through Paddle/,
      )
      // Asked for by name, it starts.
      runtime = await startBilling({
        settings: { provider: 'dev', chosen: true },
        store,
        selfUrl,
        log: silentLogger,
      })
      assert.ok(runtime.standIn !== null)
    })

    it('paddle provider: no stand-in is mounted', async () => {
      runtime = await startBilling({
        settings: {
          provider: 'paddle',
          apiUrl: 'https://sandbox-api.paddle.com',
          apiKey: 'pdl_sdbx_key',
          webhookSecrets: ['pdl_ntfset_1'],
          prices: TEST_PRICES,
          clientToken: 'test_0a1b2c',
        },
        store,
        selfUrl,
        log: silentLogger,
      })
      assert.equal(runtime.standIn, null)
      assert.ok(!runtime.handles('/dev/paddle/transactions'))
      assert.ok(runtime.handles('/webhooks/paddle'))
      assert.ok(runtime.handles('/billing/pay?_ptxn=txn_1'))
      const pay = await fetch(`${selfUrl}/billing/pay?_ptxn=txn_1`)
      assert.equal(pay.status, 200)
      assert.match(await pay.text(), /data-token="test_0a1b2c"/)
      const res = await fetch(`${selfUrl}/dev/paddle/checkout?_ptxn=txn_1`)
      assert.equal(res.status, 404)
      const forged = await fetch(`${selfUrl}/webhooks/paddle`, { method: 'POST', body: '{}' })
      assert.equal(forged.status, 401)
    })
  })
}
