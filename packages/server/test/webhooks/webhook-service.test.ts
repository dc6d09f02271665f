/**
 * The webhook service as `burrowd serve` starts it: emitting a warning wakes the dispatcher, so
 * a receiver gets it without waiting for the next poll (polling is set to an hour here), an
 * emit of a malformed warning is logged and resolves false instead of failing the caller, and
 * one the database could not record is offered again until it is.
 */

import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { setTimeout as delay } from 'node:timers/promises'
import { createLogger, silentLogger } from '@burrow/protocol'
import type { KyselyPlugin } from 'kysely'
import { MemoryUsageCounters } from '../../src/quota/memory-usage-counters.js'
import { QuotaGate } from '../../src/quota/quota-gate.js'
import { WARNING_RETRY_MS } from '../../src/quota/warning-offers.js'
import { nextResetOf, periodOf } from '../../src/quota/period.js'
import { openStore } from '../../src/store/open-store.js'
import type { Store } from '../../src/store/store.js'
import type { QuotaWarningInput } from '../../src/webhooks/quota-warning.js'
import { startWebhookService } from '../../src/webhooks/webhook-service.js'
import type { WebhookService } from '../../src/webhooks/webhook-service.js'
import { testBackends } from '../helpers/test-databases.js'
import type { TestDatabase } from '../helpers/test-databases.js'
import { startWebhookReceiver } from '../helpers/webhook-receiver.js'
import type { WebhookReceiver } from '../helpers/webhook-receiver.js'

const [sqlite] = testBackends()

describe('webhook service', () => {
  let database: TestDatabase
  let store: Store
  let receiver: WebhookReceiver
  let service: WebhookService
  let lines: string[]

  beforeEach(async () => {
    lines = []
    assert.ok(sqlite)
    database = await sqlite.create()
    store = await openStore(database.config)
    receiver = await startWebhookReceiver()
    service = startWebhookService({
      db: store.db,
      allowPrivate: true,
      log: createLogger('debug', (line) => void lines.push(line)),
      pollMs: 3_600_000,
    })
  })

  afterEach(async () => {
    await service.stop()
    await receiver.close()
    await store.close()
    await database.drop()
  })

  async function input(): Promise<QuotaWarningInput> {
    const accountId = (await store.createAccount({ email: 'a@example.com', slug: 'acme' })).id
    const tunnelId = (await store.createTunnel({ accountId })).tunnel.id
    await service.endpoints.create(accountId, { url: receiver.url })
    const now = new Date()
    return {
      accountId,
      tunnelId,
      metric: 'tool_calls',
      limit: 10,
      used: 8,
      period: periodOf(now),
      resetsAt: nextResetOf(now),
      now,
    }
  }

  it('delivers a warning as soon as it is emitted, once', async () => {
    const warning = await input()
    // The first poll ran at start, before anything was queued.
    assert.equal(await service.emitQuotaWarning(warning), true)
    await receiver.waitFor(1)
    assert.equal(await service.emitQuotaWarning(warning), false)
    assert.equal(receiver.received[0]?.headers['user-agent'], 'Burrow-Webhooks')
  })

  it('sends a warning the database could not record at the crossing once it can (found by a hostile review)', async () => {
    // The counter crosses 80% once a month: a warning that failed to be recorded then (the
    // database away for a moment) was logged and never sent.
    const warning = await input()
    let down = true
    const outage: KyselyPlugin = {
      transformQuery(args) {
        if (down) throw new Error('connect ECONNREFUSED')
        return args.node
      },
      async transformResult(args) {
        return args.result
      },
    }
    const flaky = startWebhookService({
      db: store.db.withPlugin(outage),
      allowPrivate: true,
      log: silentLogger,
      pollMs: 3_600_000,
    })
    const counters = await MemoryUsageCounters.open(store.db)
    const gate = new QuotaGate({
      counters,
      log: silentLogger,
      onQuotaWarning: async (w) => void (await flaky.emitQuotaWarning({ ...w, now: new Date() })),
    })
    try {
      await counters.set(warning.tunnelId, 'tool_calls', 79_999)
      assert.equal(
        (await gate.admit({ ...warning, id: warning.tunnelId, plan: 'free' }, 1, 10)).refusal,
        null,
      )
      await new Promise((resolve) => setTimeout(resolve, 100))
      down = false
      // Offered again within WARNING_RETRY_MS; bounded, so the failure says so rather than hang.
      await Promise.race([
        receiver.waitFor(1),
        delay(WARNING_RETRY_MS + 5000, undefined, { ref: false }),
      ])
      assert.equal(receiver.received.length, 1, 'the warning was never sent')
    } finally {
      gate.close()
      await counters.close()
      await flaky.stop()
    }
  })

  it('logs a failed emit and resolves false', async () => {
    const warning = { ...(await input()), period: 'March' }
    assert.equal(await service.emitQuotaWarning(warning), false)
    assert.ok(
      lines.some((l) => l.startsWith('ERROR') && l.includes('period "March" is not YYYY-MM')),
    )
  })
})
