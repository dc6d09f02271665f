/**
 * The service host's web side, built by `wireServices` once the edge and the custom domains are:
 * billing, the services the dashboard and JSON API read, account recovery, the dashboard, the
 * API, and the mounts (billing's webhooks, the OAuth authorization server, the dev outbox).
 */
import { randomBytes } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Logger } from '@burrow/protocol'
import type { Access } from './access/open-access.js'
import { Api } from './app/api/api.js'
import type { Mount } from './app/app.js'
import { billingPort } from './app/billing-port.js'
import { checkStillActing } from './store/still-acting.js'
import { Dashboard } from './app/dashboard/dashboard.js'
import { SignInGuard } from './app/dashboard/sign-in-guard.js'
import type { DomainsPort } from './app/domains-port.js'
import type { GovernancePort } from './app/governance-port.js'
import { authorizationServer } from './app/oauth/open-authorization-server.js'
import { openRecovery } from './app/open-recovery.js'
import { storeWebServices } from './app/store-web-services.js'
import { AccessWriteLimits } from './app/access-write-limits.js'
import { MetricsReportLimits } from './app/metrics-report-limits.js'
import { webhooksPort } from './app/webhooks-port.js'
import { startBilling, type BillingRuntime } from './billing/billing-runtime.js'
import type { TunnelRegistry } from './broker/tunnel-registry.js'
import type { ClusterEvents } from './cluster/cluster-events.js'
import type { RateLimits } from './http/rate-limits.js'
import type { ServerConfig } from './config.js'
import type { TunnelLookup } from './edge/tunnel-lookup.js'
import type { ClientAddresses } from './http/client-addresses.js'
import { brokerUrlFor } from './public-url.js'
import { readMeters } from './quota/read-meters.js'
import type { LiveUsagePort } from './app/live-meters.js'
import type { Store } from './store/store.js'
import type { WebhookEndpointStore } from './webhooks/webhook-endpoint-store.js'

/** What `wireWeb` builds on. */
export interface WebParts {
  readonly config: ServerConfig
  readonly store: Store
  readonly registry: TunnelRegistry
  readonly lookup: TunnelLookup
  readonly endpoints: WebhookEndpointStore
  readonly governance: GovernancePort
  /** Changes every node applies (plans, disconnections). */
  readonly events: ClusterEvents
  /** Rate limits every node keeps together. */
  readonly limits: RateLimits
  readonly domains: DomainsPort
  /** The tunnel label of a verified custom domain's resource URL, or null. */
  readonly customDomainLabel: (resource: string) => Promise<string | null>
  readonly access: Access
  readonly port: number
  readonly publicUrl: (subdomain: string, slug: string) => string
  readonly addresses: ClientAddresses
  /** Start a new tunnel's month where a deleted one's stood (absent when quotas are off). */
  readonly inheritUsage: ((from: string, to: string) => Promise<void>) | undefined
  /** This month's live usage of a tunnel (absent when quotas are off). */
  readonly liveUsage: LiveUsagePort | undefined
  readonly log: Logger
}

/** The service host's web side: billing, the dashboard and the JSON API, and billing's mount. */
export interface Web {
  readonly dashboard: Dashboard
  readonly api: Api
  readonly mounts: readonly Mount[]
  readonly billing: BillingRuntime
  readonly recovery: { close(): void }
}

/**
 * Start billing (with the dev provider's checkout when no Paddle keys are set) and build the
 * dashboard and API over the store. Plan changes evict cached plans.
 */
export async function wireWeb(parts: WebParts): Promise<Web> {
  const { config, store, registry, lookup, log } = parts
  const https = config.publicScheme === 'https'
  const host =
    config.listen.host === '0.0.0.0' || config.listen.host === '::'
      ? '127.0.0.1'
      : config.listen.host
  const billing = await startBilling({
    settings: config.billing,
    store,
    selfUrl: `http://${host.includes(':') ? `[${host}]` : host}:${parts.port}`,
    onPlanChanged: (accountId) => parts.events.publish({ type: 'account', accountId }),
    log,
  })
  const services = storeWebServices({
    store,
    accessWrites: new AccessWriteLimits({ limits: parts.limits }),
    metricsReports: new MetricsReportLimits({ limits: parts.limits }),
    live: {
      isOnline: (id) => registry.isOnline(id),
      // Every node: the tunnel's client may be held by another one.
      disconnect: (id, reason) =>
        parts.events.publish({ type: 'disconnect', tunnelId: id, reason }),
      evictAccount: (accountId) => parts.events.publish({ type: 'account', accountId }),
    },
    billing: billingPort(billing.service, undefined, parts.limits, (accountId) =>
      checkStillActing(store.db, accountId),
    ),
    webhooks: webhooksPort(parts.endpoints),
    governance: parts.governance,
    access: parts.access.port,
    meters: async (accountId, now) => {
      const m = await readMeters(store.db, accountId, now)
      return { ...m, tunnels: m.tunnels.map((t) => ({ ...t, name: t.tunnelId })) }
    },
    publicUrl: parts.publicUrl,
    domains: parts.domains,
    ...(parts.inheritUsage ? { inheritUsage: parts.inheritUsage } : {}),
    ...(parts.liveUsage ? { liveUsage: parts.liveUsage } : {}),
  })
  const recovery = openRecovery({
    config,
    store,
    port: parts.port,
    addresses: parts.addresses,
    log,
    limits: parts.limits,
    // Called per request, once the dashboard below exists.
    viewerOf: (req) => dashboard.viewerFor(req),
  })
  const broker = brokerUrlFor(config, parts.port)
  const dashboard = new Dashboard({
    services,
    zone: config.zone,
    broker: /^ws:\/\/(127\.0\.0\.1|localhost):7100$/.test(broker) ? null : broker,
    https,
    recovery: recovery.recovery,
    signInGuard: new SignInGuard({
      secret: await store.setSettingIfAbsent(
        'device_cookie_secret',
        randomBytes(32).toString('base64url'),
      ),
      limits: parts.limits,
    }),
    addresses: parts.addresses,
  })
  const api = new Api({ services, https })
  const mounts: Mount[] = [
    {
      matches: (url: string) => billing.handles(url),
      handle: (req: IncomingMessage, res: ServerResponse) => billing.handle(req, res),
    },
    authorizationServer(
      parts.access,
      services,
      lookup,
      https,
      parts.addresses,
      (resource) => parts.customDomainLabel(resource),
      parts.limits,
    ),
    ...recovery.mounts,
  ]
  return { dashboard, api, mounts, billing, recovery: recovery.recovery }
}
