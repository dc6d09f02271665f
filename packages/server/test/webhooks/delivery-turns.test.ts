/**
 * A node's delivery places are shared between accounts by turns, on every test database: eight
 * accounts whose ten endpoints each answer just before the deadline hold all 16 places, and
 * another account's delivery, raised after their 160, goes out as soon as a place frees, not
 * after their whole backlog (found by a hostile review: oldest due went first, whatever its
 * account); twenty such accounts, more than the places, hold it back one turn each at most, and
 * hold back its next delivery, raised once the first went out, no longer (found by a review: a
 * read of the oldest due rows, filled by one account's backlog, put it 64 places back).
 * Counted in deliveries, not timed.
 */
import assert from 'node:assert/strict'
import { createServer, type RequestListener, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, it } from 'node:test'
import { silentLogger } from '@burrow/protocol'
import { openStore } from '../../src/store/open-store.js'
import { WebhookDispatcher } from '../../src/webhooks/webhook-dispatcher.js'
import { WebhookEndpointStore } from '../../src/webhooks/webhook-endpoint-store.js'
import { enqueueWebhookEvent } from '../../src/webhooks/webhook-outbox.js'
import { testBackends } from '../helpers/test-databases.js'

/** Accounts with slow receivers, endpoints each, events each: fewer accounts than places, and more. */
const SHAPES = [
  { attackers: 8, endpoints: 10, events: 2 },
  { attackers: 20, endpoints: 10, events: 2 },
] as const

async function listen(handler: RequestListener) {
  const server = createServer(handler)
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/h` }
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections()
  return new Promise((r) => server.close(() => r()))
}

for (const backend of testBackends()) {
  describe(`webhook places shared by turns on ${backend.name}`, { timeout: 120_000 }, () => {
    for (const { attackers, endpoints: perAccount, events } of SHAPES) {
      it(`hostile: ${attackers} accounts with slow receivers do not hold back another account`, async () => {
        const database = await backend.create()
        const store = await openStore(database.config)
        let slowReceived = 0
        // Answered just before the attempt's deadline: nothing fails, nothing is retried.
        const slow = await listen((req, res) => {
          req.resume()
          slowReceived++
          setTimeout(() => res.writeHead(200).end(), 300)
        })
        // The slow deliveries received when each of the other account's two went out.
        const honestAt: number[] = []
        let onHonest = () => {}
        const honest = await listen((req, res) => {
          req.resume()
          honestAt.push(slowReceived)
          res.writeHead(204).end()
          onHonest()
        })
        const endpoints = new WebhookEndpointStore(store.db, () => new Date(), {
          allowPrivate: true,
        })
        const dispatcher = new WebhookDispatcher({
          db: store.db,
          allowPrivate: true,
          timeoutMs: 5_000,
          log: silentLogger,
        })
        try {
          const raised = new Date(Date.now() - 1000)
          for (let a = 0; a < attackers; a++) {
            const account = await store.createAccount({ email: `m${a}@example.com`, slug: `m${a}` })
            for (let e = 0; e < perAccount; e++) {
              await endpoints.create(account.id, { url: `${slow.url}?${e}` })
            }
            for (let n = 0; n < events; n++) {
              await enqueueWebhookEvent(store.db, {
                accountId: account.id,
                type: 'tool.changed',
                data: { n },
                occurredAt: new Date(raised.getTime() + n),
              })
            }
          }
          const victim = await store.createAccount({ email: 'v@example.com', slug: 'victim' })
          await endpoints.create(victim.id, { url: honest.url })
          const raise = (n: number) =>
            enqueueWebhookEvent(store.db, {
              accountId: victim.id,
              type: 'tool.changed',
              data: { honest: n },
              occurredAt: new Date(),
            })
          await raise(1)
          // Its second event is raised as soon as the first went out.
          onHonest = () => {
            if (honestAt.length === 1) void raise(2).then(() => dispatcher.wake())
          }
          dispatcher.start(50)
          while (honestAt.length < 2) await new Promise((r) => setTimeout(r, 20))
          // 16 places: the first 16 of the backlog, then, once each account had a turn, the
          // other one, and its second after one more turn each. Before, the first came after
          // all of the backlog.
          const backlog = attackers * perAccount * events
          assert.ok(
            honestAt[0]! <= 16 + attackers + 4,
            `the first went out after ${honestAt[0]} of ${backlog}`,
          )
          assert.ok(
            honestAt[1]! - honestAt[0]! <= attackers + 4,
            `the second went out ${honestAt[1]! - honestAt[0]!} deliveries after the first`,
          )
        } finally {
          await dispatcher.stop()
          await closeServer(slow.server)
          await closeServer(honest.server)
          await store.close()
          await database.drop()
        }
      })
    }
  })
}
