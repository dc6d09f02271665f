/**
 * The one place that builds what `burrowd serve` runs, in the order each part needs the others:
 * the store, outbound webhooks and the quota services first; then, once the port is bound (public
 * URLs on a localhost zone and the dev billing provider need it), the tunnel registry and lookup,
 * the edge and the broker, billing, the services the dashboard and JSON API read, and the app.
 * `serve.ts` owns the listener, the routing by Host and Upgrade, and the shutdown.
 */
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Logger } from '@burrow/protocol'
import { App } from './app/app.js'
import { Broker } from './broker/broker.js'
import { ResumeTokens } from './broker/resume-token.js'
import { TunnelRegistry } from './broker/tunnel-registry.js'
import type { ServerConfig } from './config.js'
import { openCluster, type Cluster } from './cluster/open-cluster.js'
import { Edge } from './edge/edge.js'
import { openAccess } from './access/open-access.js'
import { TunnelLookup } from './edge/tunnel-lookup.js'
import { ClientAddresses } from './http/client-addresses.js'
import { publicUrlFor, serviceUrlFor } from './public-url.js'
import { openGovernance } from './governance/open-governance.js'
import { ServiceMetrics } from './observability/service-metrics.js'
import { wireWeb } from './wire-web.js'
import { openQuotaServices } from './quota/open-quota-services.js'
import { openStore } from './store/open-store.js'
import { governancePort } from './app/governance-services-port.js'
import { startWebhookService } from './webhooks/webhook-service.js'
import { openCustomDomains } from './domains/open-custom-domains.js'
import { WelcomeUrls } from './domains/welcome-urls.js'
import { WelcomeAccess } from './access/welcome-access.js'
import { PendingListings } from './edge/pending-listings.js'
import { liveUsageOf } from './quota/live-usage.js'
import { followPlanChanges } from './quota/plan-changes.js'
import { WebSessionPurger } from './app/web-session-purger.js'

/** What `wireServices` needs from `serve`. */
export interface WireOptions {
  readonly config: ServerConfig
  readonly log: Logger
  /**
   * Bind the listener and return the port bound. Called once the database is open and migrated
   * and the quota services have started, so a database that cannot be opened never takes the port.
   */
  readonly listen: () => Promise<number>
}

/** Everything `serve` routes requests to and shuts down. */
export interface Services {
  /** The port the listener is bound to. */
  readonly port: number
  /** burrowd's Prometheus metrics. */
  readonly metrics: ServiceMetrics
  readonly registry: TunnelRegistry
  readonly lookup: TunnelLookup
  readonly edge: Edge
  readonly broker: Broker
  readonly app: App
  /** The cluster side of this node (several nodes sharing Redis), or null for one node. */
  readonly cluster: Cluster | null
  /** Answer `req` when it is for the `burrowd usage set` endpoint; false when it is not. */
  handleAdmin(req: IncomingMessage, res: ServerResponse): Promise<void> | false
  /** Answer `req` when it is for a custom domain or Caddy's TLS question; false when not. */
  handleDomain(req: IncomingMessage, res: ServerResponse, host: string): Promise<boolean>
  /**
   * Record every connected tunnel as seen now. From then on, links that close are not recorded
   * one by one (at shutdown they all close at once).
   */
  recordSeen(): Promise<void>
  /** Stop billing, webhooks and the quota services, then close the store. */
  close(): Promise<void>
}

/** Open the store and build every service over it, binding the listener on the way. */
export async function wireServices({ config, log, listen }: WireOptions): Promise<Services> {
  const store = await openStore(config)
  const secret = await store.setSettingIfAbsent(
    'resume_secret',
    randomBytes(32).toString('base64url'),
  )
  const version = packageVersion()
  // burrowd's own metrics; the gauges read the registry and the edge, made further down.
  let connections = (): number => 0
  let bodyBytes = (): number => 0
  let answerBytes = (): number => 0
  let queuedBytes = (): number => 0
  const metrics = new ServiceMetrics({
    connections: () => connections(),
    bodyBytes: () => bodyBytes(),
    answerBytes: () => answerBytes(),
    queuedBytes: () => queuedBytes(),
  })
  // Outbound webhooks: `webhooks.endpoints` serves the dashboard and API, and the quota code
  // raises `quota.warning` through `webhooks.emitQuotaWarning` when a counter crosses 80%.
  const webhooks = startWebhookService({
    db: store.db,
    allowPrivate: config.webhooksAllowPrivate,
    log,
    userAgent: `Burrow-Webhooks/${version}`,
    onAttempt: (outcome) => metrics.webhookDeliveries.inc({ outcome }),
  })
  let port = 0
  const publicUrl = (subdomain: string, slug: string): string =>
    publicUrlFor(config, subdomain, slug, port)
  const quota = await openQuotaServices(config, store, log, {
    onQuotaWarning: async (w) => {
      const account = await store.getAccountById(w.accountId)
      const tunnel = await store.getTunnel(w.accountId, w.tunnelId)
      await webhooks.emitQuotaWarning({
        ...w,
        tunnelName: tunnel?.name ?? null,
        publicUrl: tunnel && account ? publicUrl(tunnel.subdomain, account.slug) : null,
        now: new Date(),
      })
    },
  })
  port = await listen()
  await quota.advertise(port)

  const addresses = new ClientAddresses(config.trustedProxies)
  /** This process among the nodes sharing the database (for cluster events). */
  const nodeId = `node_${randomBytes(6).toString('hex')}`
  // Set by `recordSeen`: links closing then are recorded as seen at once, not one by one.
  let stopping = false
  const touch = (id: string): Promise<void> =>
    store
      .touchTunnel(id, new Date())
      .catch((err: Error) => log.warn(`could not record tunnel ${id} as seen: ${err.message}`))
  // A tunnel with a custom domain is told that URL when it connects (the domains come later).
  const welcomeUrls = new WelcomeUrls()
  // And who may call it, with its Access tab (the access feature comes later).
  const welcomeAccess = new WelcomeAccess(
    (id) => `${serviceUrlFor(config, port)}/dashboard/tunnels/${encodeURIComponent(id)}/access`,
    log,
  )
  const registry = new TunnelRegistry({
    tokens: new ResumeTokens(secret),
    graceMs: config.resumeGraceSecs * 1000,
    heartbeatMs: config.heartbeatSecs * 1000,
    publicUrl: (t) => welcomeUrls.urlFor(t, publicUrl(t.subdomain, t.accountSlug)),
    log,
    touch: (id) => (stopping ? Promise.resolve() : touch(id)),
    meters: metrics.linkMeters(),
    onHeld: (id) => cluster?.router.held(id),
    onGone: (id) => cluster?.router.gone(id),
    access: (t) => welcomeAccess.noteFor(t),
  })
  connections = () => registry.connectionCount
  queuedBytes = () => registry.queuedBytes
  const lookup = new TunnelLookup(config.zone, (sub, slug) => store.findTunnelByHost(sub, slug))
  const governance = await openGovernance(config, store, quota.edge.history, log, nodeId, {
    dashboardUrl: `${serviceUrlFor(config, port)}/dashboard/tunnels/`,
    onToolChange: async (change) => {
      const tunnel = await store.getTunnel(change.accountId, change.tunnelId)
      await webhooks.emitToolChanged({ ...change, tunnelName: tunnel?.name ?? null })
    },
  })
  // Several nodes: tunnels held elsewhere are reached through their node; every node drops
  // what it cached about an account or tunnel another node changed.
  const cluster: Cluster | null = await openCluster({
    config,
    store,
    registry,
    events: governance.events,
    nodeId,
    port,
    log,
  })
  // A plan changed: responses admitted under a higher one are cut by the plan in force now.
  if (quota.edge.quotas) {
    followPlanChanges(
      governance.events,
      quota.edge.quotas,
      async (id) => (await store.getAccountById(id))?.plan,
      log,
    )
  }
  governance.events.subscribe((event) => {
    if (event.type === 'account') lookup.invalidate()
    if (event.type === 'disconnect') {
      registry.disconnect(event.tunnelId, event.reason)
      lookup.invalidate()
    }
  })
  const access = await openAccess(config, store, port, log, governance.events)
  welcomeAccess.use((id) => access.gate.settings(id))
  const edge = new Edge({
    access: access.gate,
    lookup,
    registry,
    ...(cluster ? { router: cluster.router } : {}),
    maxBodyBytes: config.maxBodyBytes,
    queueWaitMs: config.queueWaitMs,
    publicScheme: config.publicScheme,
    addresses,
    log,
    ...quota.edge,
    history: governance.history,
    policies: governance.policies,
    rateLimits: governance.rateLimits,
    pins: governance.pins,
    listings: new PendingListings(
      cluster ? { events: governance.events, node: nodeId } : undefined,
    ),
  })
  bodyBytes = () => edge.bodyBytesHeld
  // A tunnel's access changed (here or on another node): its open requests are checked again.
  governance.events.subscribe((event) => {
    if (event.type !== 'access') return
    access.gate.invalidate(event.tunnelId)
    void edge.recheckAccess(event.tunnelId)
    // Its client, if connected here (or connecting), is told a changed mode (NOTICE).
    void welcomeAccess.changed(event.tunnelId, registry)
  })
  answerBytes = () => edge.answerBytesHeld
  const broker = new Broker({
    findTunnelByKey: async (key) =>
      welcomeAccess.note(await welcomeUrls.note(await store.findTunnelByKey(key))),
    registry,
    addresses,
    log,
    onKeyCheck: (outcome) => metrics.keyChecks.inc({ outcome }),
    limits: governance.limits,
  })
  const domains = openCustomDomains({
    config,
    store,
    lookup,
    edge,
    port,
    log,
    events: governance.events,
    limits: governance.limits,
    onEdgeRequest: (res) => {
      const started = performance.now()
      res.once('close', () => metrics.edgeAnswered(res, started))
    },
  })
  welcomeUrls.use(async (t) => (await domains.web.servingUrls(t.accountId)).get(t.id))
  const web = await wireWeb({
    config,
    domains: domains.web,
    customDomainLabel: (resource) => domains.labelOfResource(resource),
    store,
    governance: governancePort(store.db, store.toolPins, governance),
    access,
    events: governance.events,
    limits: governance.limits,
    registry,
    lookup,
    endpoints: webhooks.endpoints,
    port,
    publicUrl,
    addresses,
    inheritUsage: quota.inheritUsage,
    liveUsage: quota.counters ? liveUsageOf(quota.counters) : undefined,
    log,
  })
  const app = new App({
    version,
    connections: () => registry.connectionCount,
    clientRelease: {
      version: config.clientLatestVersion ?? version,
      downloadUrl: config.clientDownloadUrl,
    },
    crashReports: store.crashReports,
    addresses,
    limits: governance.limits,
    metrics: { service: metrics, token: config.metricsToken },
    log,
    web,
  })

  const sessionPurger = new WebSessionPurger(store.webSessions, log)

  return {
    port,
    metrics,
    registry,
    lookup,
    edge,
    broker,
    app,
    cluster,
    handleAdmin: (req, res) => quota.handleAdmin(req, res),
    handleDomain: (req, res, host) => domains.handle(req, res, host),
    async recordSeen() {
      stopping = true
      await Promise.all(registry.connectedTunnelIds().map(touch))
    },
    async close() {
      web.billing.stop()
      await cluster?.close()
      await domains.stop()
      web.recovery.close()
      await webhooks.stop()
      await governance.close()
      await access.close()
      await quota.close()
      await sessionPurger.close()
      await store.close()
    },
  }
}

/** burrowd's version, from its package.json. */
function packageVersion(): string {
  const file = new URL('../package.json', import.meta.url)
  const { version } = JSON.parse(readFileSync(file, 'utf8')) as { version?: unknown }
  return typeof version === 'string' ? version : 'unknown'
}
