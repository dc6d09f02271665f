/**
 * The service host's web side as `burrowd serve` runs it: billing (with the dev provider's
 * checkout when no Paddle keys are set), the dashboard and the JSON API over the store, and the
 * handlers the app mounts (payment webhooks, checkout pages). Plan changes evict cached plans.
 */
import { randomBytes } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Logger } from '@burrow/protocol'
import { Api } from '../api/api.js'
import type { Mount } from '../app/app.js'
import type { ClientAddresses } from '../http/client-addresses.js'
import { startBilling, type BillingRuntime } from '../billing/billing-runtime.js'
import type { BillingService } from '../billing/billing-service.js'
import type { TunnelRegistry } from '../broker/tunnel-registry.js'
import type { ServerConfig } from '../config.js'
import type { TunnelLookup } from '../edge/tunnel-lookup.js'
import type { Store } from '../store/store.js'
import type { WebhookEndpointStore } from '../webhooks/webhook-endpoint-store.js'
import type { MetersView, SubscriptionView } from './billing-view.js'
import { Dashboard } from './dashboard.js'
import { SignInGuard } from './sign-in-guard.js'
import { storeWebServices } from './store-web-services.js'
import type { BillingPort } from './web-services.js'
import { webhooksPort } from './webhooks-port.js'

/** What `startWeb` needs from `serve`. */
export interface StartWebOptions {
  readonly config: ServerConfig
  readonly store: Store
  readonly registry: TunnelRegistry
  readonly lookup: TunnelLookup
  readonly endpoints: WebhookEndpointStore
  /** This month's meters of an account, from the last snapshot. */
  readonly meters: (
    accountId: string,
    now: Date,
  ) => Promise<
    Omit<MetersView, 'tunnels'> & {
      tunnels: readonly { tunnelId: string; toolCalls: number; bandwidthBytes: number }[]
    }
  >
  /** The port burrowd bound (public URLs on a localhost zone carry it). */
  readonly port: number
  readonly publicUrl: (subdomain: string, slug: string) => string
  /** Who sent a request, behind the trusted proxies. */
  readonly addresses: ClientAddresses
  readonly log: Logger
}

/** The running web side. */
export interface Web {
  readonly dashboard: Dashboard
  readonly api: Api
  readonly mounts: readonly Mount[]
  readonly billing: BillingRuntime
  stop(): void
}

/** Start billing and build the dashboard and API. */
export async function startWeb(opts: StartWebOptions): Promise<Web> {
  const { config, store, registry, lookup, log } = opts
  const https = config.publicScheme === 'https'
  const host =
    config.listen.host === '0.0.0.0' || config.listen.host === '::'
      ? '127.0.0.1'
      : config.listen.host
  const billing = await startBilling({
    settings: config.billing,
    store,
    selfUrl: `http://${host.includes(':') ? `[${host}]` : host}:${opts.port}`,
    onPlanChanged: () => lookup.invalidate(),
    log,
  })
  const services = storeWebServices({
    store,
    live: {
      isOnline: (id) => registry.isOnline(id),
      disconnect: (id, reason) => {
        registry.disconnect(id, reason)
        lookup.invalidate()
      },
      evictAccount: () => lookup.invalidate(),
    },
    billing: billingPort(billing.service),
    webhooks: webhooksPort(opts.endpoints),
    meters: async (accountId, now) => {
      const m = await opts.meters(accountId, now)
      return { ...m, tunnels: m.tunnels.map((t) => ({ ...t, name: t.tunnelId })) }
    },
    publicUrl: opts.publicUrl,
  })
  const dashboard = new Dashboard({
    services,
    zone: config.zone,
    https,
    signInGuard: new SignInGuard({
      secret: await store.setSettingIfAbsent(
        'device_cookie_secret',
        randomBytes(32).toString('base64url'),
      ),
    }),
    addresses: opts.addresses,
  })
  const api = new Api({ services, https })
  const mounts: Mount[] = [
    {
      matches: (url: string) => billing.handles(url),
      handle: (req: IncomingMessage, res: ServerResponse) => billing.handle(req, res),
    },
  ]
  return { dashboard, api, mounts, billing, stop: () => billing.stop() }
}

/** The billing module as the dashboard and API use it. */
function billingPort(service: BillingService): BillingPort {
  const checkoutOrigins =
    service.config.provider === 'paddle' ? [new URL(service.config.apiUrl).origin, 'https:'] : []
  return {
    checkoutOrigins,
    checkoutUrl: (account, plan, cycle, successUrl) =>
      service.checkoutUrl(account, plan, cycle, successUrl),
    cancel: async (accountId) => {
      await service.cancel(accountId)
    },
    switchCycle: async (accountId, cycle) => {
      await service.switchCycle(accountId, cycle)
    },
    subscription: async (accountId): Promise<SubscriptionView | null> => {
      const status = await service.status(accountId)
      const sub = status.subscription
      if (!sub) return null
      return {
        plan: sub.plan,
        cycle: sub.cycle,
        state: status.state === 'none' ? 'free' : status.state,
        periodEndsAt: sub.periodEndsAt,
        cancelsAt: sub.cancelsAt,
      }
    },
  }
}
