/**
 * The webhook service as `burrowd serve` starts it: emitting a warning wakes the dispatcher, so
 * a receiver gets it without waiting for the next poll (polling is set to an hour here), and an
 * emit that fails is logged and resolves false instead of failing the caller.
 */

import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { createLogger } from '@burrow/protocol'
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

  it('logs a failed emit and resolves false', async () => {
    const warning = { ...(await input()), period: 'March' }
    assert.equal(await service.emitQuotaWarning(warning), false)
    assert.ok(
      lines.some((l) => l.startsWith('ERROR') && l.includes('period "March" is not YYYY-MM')),
    )
  })
})
