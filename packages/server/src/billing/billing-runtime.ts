/**
 * Billing as burrowd runs it: from the configured provider to a running `BillingService`, its
 * webhook route at `/webhooks/paddle`, the expiry sweep, and either the checkout page Paddle's
 * links open (`/billing/pay`, loading Paddle.js) or, for the `dev` provider, the Paddle stand-in
 * mounted at `/dev/paddle` on burrowd's own port, whose webhooks come back to burrowd itself.
 * One `handles`/`handle` pair for the app to route all of these through.
 */

import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Logger } from '@burrow/protocol'
import type { Kysely } from 'kysely'
import type { BillingSettings } from '../config.js'
import { ConfigError } from '../config-error.js'
import type { Database } from '../store/schema.js'
import type { BillingConfig, SettingsStore } from './billing-config.js'
import { DEV_PADDLE_PREFIX, devBillingConfig } from './billing-config.js'
import { BillingService } from './billing-service.js'
import { PADDLE_PAY_PATH, servePaddlePayPage } from './paddle-pay-page.js'
import { PaddleStandIn } from './paddle-stand-in.js'
import { PADDLE_WEBHOOK_PATH, PaddleWebhookRoute } from './paddle-webhook-route.js'

/** How often the sweep moves accounts whose paid period ended to Free, by default. */
export const EXPIRY_SWEEP_INTERVAL_MS = 60_000

/** Options of `startBilling`. */
export interface StartBillingOptions {
  /** `config.billing`. */
  readonly settings: BillingSettings
  /** The store: its Kysely instance and settings (the dev provider keeps its secrets there). */
  readonly store: SettingsStore & { readonly db: Kysely<Database> }
  /**
   * How burrowd reaches itself over HTTP, e.g. `http://127.0.0.1:7100` (a wildcard listen
   * address replaced by loopback). The dev provider's API and webhooks go there.
   */
  readonly selfUrl: string
  /**
   * Base URL browsers open the dev checkout at (e.g. `http://localhost:7100/dev/paddle`);
   * default: the host burrowd called its own API with (`selfUrl`).
   */
  readonly devCheckoutUrl?: string
  /** Called after an account's plan may have changed: evict cached plans here. */
  readonly onPlanChanged?: (accountId: string) => void | Promise<void>
  /** Sweep interval (default `EXPIRY_SWEEP_INTERVAL_MS`). */
  readonly sweepIntervalMs?: number
  readonly now?: () => Date
  readonly log: Logger
}

/** Billing, running. */
export interface BillingRuntime {
  readonly service: BillingService
  /** The dev provider's stand-in (mounted at `/dev/paddle`), or null with Paddle. */
  readonly standIn: PaddleStandIn | null
  /**
   * True for the paths billing serves: the webhook; with Paddle, the checkout page
   * `/billing/pay`; with the dev provider, the stand-in's paths under `/dev/paddle`.
   */
  handles(url: string): boolean
  /** Serve a request `handles` accepted. */
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>
  /** Stop the expiry sweep. */
  stop(): void
}

/** Start billing for the configured provider. */
export async function startBilling(opts: StartBillingOptions): Promise<BillingRuntime> {
  if (opts.settings.provider === 'dev' && opts.settings.chosen !== true) {
    await refuseDevFallback(opts.store.db)
  }
  const selfUrl = opts.selfUrl.replace(/\/+$/, '')
  const config: BillingConfig =
    opts.settings.provider === 'dev' ? await devBillingConfig(opts.store, selfUrl) : opts.settings
  const service = new BillingService({
    config,
    db: opts.store.db,
    log: opts.log,
    ...(opts.now ? { now: opts.now } : {}),
    ...(opts.onPlanChanged ? { onPlanChanged: opts.onPlanChanged } : {}),
  })
  const route = new PaddleWebhookRoute(service)
  const standIn =
    config.provider === 'dev'
      ? new PaddleStandIn({
          apiKey: config.apiKey,
          webhookSecret: config.webhookSecrets[0]!,
          notificationUrl: selfUrl + PADDLE_WEBHOOK_PATH,
          prices: config.prices,
          prefix: DEV_PADDLE_PREFIX,
          log: opts.log,
          ...(opts.devCheckoutUrl ? { publicUrl: opts.devCheckoutUrl } : {}),
          ...(opts.now ? { now: opts.now } : {}),
        })
      : null
  const clientToken = opts.settings.provider === 'paddle' ? opts.settings.clientToken : null
  if (opts.settings.provider === 'paddle' && clientToken === null) {
    opts.log.warn(
      `billing: BURROW_PADDLE_CLIENT_TOKEN is not set, so ${PADDLE_PAY_PATH} cannot open ` +
        "Paddle's checkout; set it to a client-side token from Paddle > Developer tools",
    )
  }
  if (standIn !== null) {
    opts.log.info(
      `billing: dev provider at ${DEV_PADDLE_PREFIX} (no money moves; anyone who can reach it ` +
        'can subscribe); set BURROW_PADDLE_API_KEY and friends to take payments through Paddle',
    )
  }
  if (config.provider === 'paddle') {
    // Plans the dev provider gave end now rather than at the sweep's first pass.
    await service.expireDue().catch((error: Error) => {
      opts.log.warn(`billing: expiry sweep failed, will retry: ${error.message}`)
    })
  }
  service.startExpirySweep(opts.sweepIntervalMs ?? EXPIRY_SWEEP_INTERVAL_MS)

  return {
    service,
    standIn,
    handles: (url) => {
      const path = url.split('?', 1)[0]
      if (path === PADDLE_WEBHOOK_PATH) return true
      return standIn === null ? path === PADDLE_PAY_PATH : standIn.handles(url)
    },
    handle: async (req, res) => {
      const url = req.url ?? '/'
      if (standIn?.handles(url)) return standIn.handle(req, res)
      if (url.split('?', 1)[0] === PADDLE_PAY_PATH) return servePaddlePayPage(req, res, clientToken)
      return route.handle(req, res)
    },
    stop: () => service.stop(),
  }
}

/**
 * Refuse the dev provider taken by default (no `BURROW_PADDLE_API_KEY`) on a database where
 * Paddle's subscriptions are: a key lost in a redeploy would otherwise open a checkout where
 * anyone subscribes without paying, and refuse Paddle's webhooks (another secret), so no
 * cancellation, failed payment or chargeback would reach the accounts that pay.
 */
async function refuseDevFallback(db: Kysely<Database>): Promise<void> {
  const paddle = await db
    .selectFrom('subscriptions')
    .select('account_id')
    .where('provider', '=', 'paddle')
    .executeTakeFirst()
  if (paddle === undefined) return
  throw new ConfigError(
    'BURROW_PADDLE_API_KEY',
    'BURROW_PADDLE_API_KEY is not set, so burrowd would take payments through the dev provider ' +
      '(no money moves), but its database holds subscriptions made through Paddle; set the ' +
      'BURROW_PADDLE_* variables, or BURROW_BILLING_PROVIDER=dev if that is what you mean',
  )
}
