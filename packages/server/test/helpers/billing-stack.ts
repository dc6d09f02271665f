/**
 * A billing test stack on real sockets: the Paddle stand-in on its own port (as "Paddle"), a
 * webhook route on another (as burrowd), a BillingService between them over a real store, and
 * one clock for all of them. Records every webhook the route answered.
 */

import { createServer } from 'node:http'
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { BillingConfig } from '../../src/billing/billing-config.js'
import { BillingService } from '../../src/billing/billing-service.js'
import { PaddleStandIn } from '../../src/billing/paddle-stand-in.js'
import { PADDLE_WEBHOOK_PATH, PaddleWebhookRoute } from '../../src/billing/paddle-webhook-route.js'
import { openStore } from '../../src/store/open-store.js'
import type { Store } from '../../src/store/store.js'
import { TEST_PRICES } from './paddle-events.js'
import type { TestBackend, TestDatabase } from './test-databases.js'

export const STACK_API_KEY = 'pdl_test_apikey_stack'
export const STACK_SECRET = 'pdl_ntfset_stack_secret'

/** One webhook as the route answered it. */
export interface ReceivedWebhook {
  readonly eventType: string
  readonly eventId: string
  readonly status: number
  readonly outcome: string | undefined
}

/** The running stack. */
export interface BillingStack {
  readonly store: Store
  readonly billing: BillingService
  readonly paddle: PaddleStandIn
  /** Base URL of the stand-in ("Paddle's API"). */
  readonly paddleUrl: string
  readonly webhookUrl: string
  /** Webhooks the route answered, in arrival order. */
  readonly received: ReceivedWebhook[]
  /** Accounts `onPlanChanged` was called for, in order. */
  readonly changed: string[]
  /** Answer the next `n` webhooks with 503 without handling them. */
  failNext(n: number): void
  close(): Promise<void>
}

/** Start a stack on `backend` with the clock `now`. */
export async function startBillingStack(
  backend: TestBackend,
  now: () => Date,
): Promise<BillingStack> {
  const database: TestDatabase = await backend.create()
  const store = await openStore(database.config, { now })
  const received: ReceivedWebhook[] = []
  const changed: string[] = []
  let failures = 0
  // The servers start first (their ports go into the config); requests arrive only after the
  // route and the stand-in below exist.
  const app = await listen(async (req, res) => {
    if (failures > 0) {
      failures--
      res.writeHead(503).end()
      return
    }
    await route.handle(req, res)
  })
  const paddleServer = await listen((req, res) => paddle.handle(req, res))
  const paddleUrl = `http://127.0.0.1:${port(paddleServer)}`
  const webhookUrl = `http://127.0.0.1:${port(app)}${PADDLE_WEBHOOK_PATH}`

  const config: BillingConfig = {
    provider: 'paddle',
    apiUrl: paddleUrl,
    apiKey: STACK_API_KEY,
    webhookSecrets: [STACK_SECRET],
    prices: TEST_PRICES,
  }
  const billing = new BillingService({
    config,
    db: store.db,
    now,
    onPlanChanged: (id) => void changed.push(id),
  })
  // The route, with a record of what it answered each webhook.
  const route = new PaddleWebhookRoute({
    async handleWebhook(raw, headers) {
      const answer = await billing.handleWebhook(raw, headers)
      const event = parseLoosely(raw)
      received.push({
        eventType: event.event_type ?? '',
        eventId: event.event_id ?? '',
        status: answer.status,
        outcome: (JSON.parse(answer.body) as { outcome?: string }).outcome,
      })
      return answer
    },
  })
  const paddle = new PaddleStandIn({
    apiKey: STACK_API_KEY,
    webhookSecret: STACK_SECRET,
    notificationUrl: webhookUrl,
    prices: TEST_PRICES,
    now,
    retryDelaysMs: [0, 0, 0],
    // The dashboard the tests return to, on a host of its own (as Paddle's page would be).
    returnOrigins: ['http://burrow.test'],
  })

  return {
    store,
    billing,
    paddle,
    paddleUrl,
    webhookUrl,
    received,
    changed,
    failNext: (n) => void (failures = n),
    async close() {
      billing.stop()
      await paddle.idle()
      await Promise.all([close(app), close(paddleServer)])
      await store.close()
      await database.drop()
    },
  }
}

function parseLoosely(raw: Buffer): { event_type?: string; event_id?: string } {
  try {
    return JSON.parse(raw.toString()) as { event_type?: string; event_id?: string }
  } catch {
    return {}
  }
}

async function listen(
  handler: (req: IncomingMessage, res: ServerResponse) => void | Promise<void>,
): Promise<Server> {
  const server = createServer((req, res) => void handler(req, res))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return server
}

function port(server: Server): number {
  return (server.address() as AddressInfo).port
}

function close(server: Server): Promise<void> {
  server.closeAllConnections()
  return new Promise((resolve) => server.close(() => resolve()))
}
