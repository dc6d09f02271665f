/**
 * `burrowd serve`: one HTTP port that routes each request by Host and Upgrade to the edge (tunnel
 * hostnames), the broker (WebSocket upgrades from `burrow up`) or the app (everything else), and
 * shuts down cleanly on SIGTERM/SIGINT.
 */
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Duplex } from 'node:stream'
import { createLogger, type Logger } from '@burrow/protocol'
import { App } from './app/app.js'
import { Broker } from './broker/broker.js'
import { rejectUpgrade } from './broker/reject-upgrade.js'
import { ResumeTokens } from './broker/resume-token.js'
import { TunnelRegistry } from './broker/tunnel-registry.js'
import type { ServerConfig } from './config.js'
import { Edge } from './edge/edge.js'
import { ClientAddresses } from './http/client-addresses.js'
import { sendRefusal } from './http/send-refusal.js'
import { answerClientError } from './http/answer-client-error.js'
import { TunnelLookup } from './edge/tunnel-lookup.js'
import { publicUrlFor } from './public-url.js'
import { openQuotaServices } from './quota/open-quota-services.js'
import { readMeters } from './quota/read-meters.js'
import { startWeb } from './web/start-web.js'
import { openStore } from './store/open-store.js'
import { startWebhookService } from './webhooks/webhook-service.js'

/** Seconds in-flight requests get to finish when burrowd stops. */
const SHUTDOWN_GRACE_MS = 10_000

/** Run the service until SIGTERM or SIGINT. */
export async function serve(config: ServerConfig): Promise<void> {
  const log = createLogger(config.logLevel, (line) => void process.stderr.write(line))
  const store = await openStore(config)
  const secret = await store.setSettingIfAbsent(
    'resume_secret',
    randomBytes(32).toString('base64url'),
  )
  const version = packageVersion()
  // Outbound webhooks: `webhooks.endpoints` serves the dashboard and API, and the quota code
  // raises `quota.warning` through `webhooks.emitQuotaWarning` when a counter crosses 80%.
  const webhooks = startWebhookService({
    db: store.db,
    allowPrivate: config.webhooksAllowPrivate,
    log,
    userAgent: `Burrow-Webhooks/${version}`,
  })
  let port = 0
  const quota = await openQuotaServices(config, store, log, {
    onQuotaWarning: async (w) => {
      const account = await store.getAccountById(w.accountId)
      const tunnel = await store.getTunnel(w.accountId, w.tunnelId)
      await webhooks.emitQuotaWarning({
        ...w,
        tunnelName: tunnel?.name ?? null,
        publicUrl:
          tunnel && account ? publicUrlFor(config, tunnel.subdomain, account.slug, port) : null,
        now: new Date(),
      })
    },
  })
  const server = createServer({ keepAliveTimeout: 65_000 })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(config.listen.port, config.listen.host, () => resolve())
  })
  port = (server.address() as AddressInfo).port
  await quota.advertise(port)

  const addresses = new ClientAddresses(config.trustedProxies)
  // Set at shutdown: links closing then are recorded as seen at once, not one by one afterwards.
  let stopping = false
  const touch = (id: string): Promise<void> =>
    store
      .touchTunnel(id, new Date())
      .catch((err: Error) => log.warn(`could not record tunnel ${id} as seen: ${err.message}`))
  const registry = new TunnelRegistry({
    tokens: new ResumeTokens(secret),
    graceMs: config.resumeGraceSecs * 1000,
    heartbeatMs: config.heartbeatSecs * 1000,
    publicUrl: (t) => publicUrlFor(config, t.subdomain, t.accountSlug, port),
    log,
    touch: (id) => (stopping ? Promise.resolve() : touch(id)),
  })
  const lookup = new TunnelLookup(config.zone, (sub, slug) => store.findTunnelByHost(sub, slug))
  const edge = new Edge({
    lookup,
    registry,
    maxBodyBytes: config.maxBodyBytes,
    queueWaitMs: config.queueWaitMs,
    publicScheme: config.publicScheme,
    addresses,
    log,
    ...quota.edge,
  })
  const broker = new Broker({
    findTunnelByKey: (key) => store.findTunnelByKey(key),
    registry,
    addresses,
    log,
  })
  const web = await startWeb({
    config,
    store,
    registry,
    lookup,
    endpoints: webhooks.endpoints,
    meters: (accountId, now) => readMeters(store.db, accountId, now),
    port,
    publicUrl: (subdomain, slug) => publicUrlFor(config, subdomain, slug, port),
    addresses,
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
    log,
    web,
  })

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const host = hostOf(req)
    const label = lookup.tunnelLabel(host)
    const done = label
      ? edge.handle(req, res, label, host)
      : quota.handleAdmin(req, res) || Promise.resolve(app.handle(req, res))
    done.catch((err: Error) => internalError(log, res, err))
  })
  server.on('clientError', answerClientError)
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (lookup.tunnelLabel(hostOf(req))) {
      rejectUpgrade(
        socket,
        'not_found',
        'tunnel hosts serve MCP over HTTP at /mcp; connect tunnel clients to the service host',
      )
      return
    }
    broker.handleUpgrade(req, socket, head).catch((err: Error) => {
      log.error(`broker: ${err.stack ?? err.message}`)
      socket.destroy()
    })
  })

  const example = publicUrlFor(config, '<subdomain>', '<account>', port)
  process.stdout.write(
    `burrowd listening on http://${formatHost(config.listen.host)}:${port}; tunnels at ${example}/mcp\n`,
  )
  await stopped(log)

  log.info('shutting down: asking tunnel clients to reconnect later, finishing in-flight requests')
  registry.drainAll(1000)
  server.close()
  const deadline = Date.now() + SHUTDOWN_GRACE_MS
  while (registry.streamCount > 0 && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 50))
  stopping = true
  await Promise.all(registry.connectedTunnelIds().map(touch))
  registry.closeAll()
  server.closeAllConnections()
  web.stop()
  await webhooks.stop()
  await quota.close()
  await store.close()
  log.info('stopped')
}

function hostOf(req: IncomingMessage): string {
  const host = (req.headers.host ?? '').toLowerCase()
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1)
  const colon = host.lastIndexOf(':')
  return colon === -1 ? host : host.slice(0, colon)
}

function formatHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host
}

function internalError(log: Logger, res: ServerResponse, err: Error): void {
  log.error(`request failed: ${err.stack ?? err.message}`)
  sendRefusal(
    res,
    'tunnel_offline',
    'internal error',
    'burrowd failed to handle the request; it was logged',
  )
}

function stopped(log: Logger): Promise<void> {
  return new Promise((resolve) => {
    const stop = (signal: string) => {
      log.info(`${signal} received`)
      process.off('SIGINT', onInt)
      process.off('SIGTERM', onTerm)
      resolve()
    }
    const onInt = () => stop('SIGINT')
    const onTerm = () => stop('SIGTERM')
    process.on('SIGINT', onInt)
    process.on('SIGTERM', onTerm)
  })
}

function packageVersion(): string {
  const file = new URL('../package.json', import.meta.url)
  const { version } = JSON.parse(readFileSync(file, 'utf8')) as { version?: unknown }
  return typeof version === 'string' ? version : 'unknown'
}
