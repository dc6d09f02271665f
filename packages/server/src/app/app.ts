/**
 * The service host's own pages and API: everything that is not a tunnel hostname or a tunnel
 * WebSocket. The health check, a short description, the client release check
 * (`GET /api/client/latest`) and crash reports from clients (`POST /api/crash-reports`); the
 * rest of the JSON API and the dashboard mount here.
 */
import { localRateLimits, type RateLimits } from '../http/rate-limits.js'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Logger } from '@burrow/protocol'
import { sendRefusal } from '../http/send-refusal.js'
import { HttpError } from '../http/http-error.js'
import { sendApiError } from '../http/responses.js'
import type { Api } from './api/api.js'
import { APP_CSS, APP_JS, FAVICON_SVG } from './dashboard/assets.js'
import type { Dashboard } from './dashboard/dashboard.js'
import { sendClientRelease, type ClientRelease } from './client-release.js'
import { CrashReportRoute, type CrashReportSink } from './crash-report-route.js'
import { ClientAddresses, networkOfRateKey } from '../http/client-addresses.js'
import type { ServiceMetrics } from '../observability/service-metrics.js'
import { serveMetrics } from '../observability/metrics-route.js'
import { RateLimiter } from '../http/rate-limiter.js'

/** Crash reports one client address may send per minute (a burst of this many, then refilled). */
export const CRASH_REPORTS_PER_MINUTE = 30
/**
 * Crash reports one node accepts per minute from all addresses together: strangers with many
 * addresses would otherwise push every genuine report out of the newest 10 000 kept, and write
 * a log line each, as fast as they send.
 */
export const CRASH_REPORTS_PER_MINUTE_PER_NODE = 300

/** What the app reports about the running service, and where it stores what clients send. */
export interface AppOptions {
  readonly version: string
  readonly connections: () => number
  /** Announced at `GET /api/client/latest`. */
  readonly clientRelease: ClientRelease
  /** Stores crash reports (the store's `crashReports`). */
  readonly crashReports: CrashReportSink
  readonly log: Logger
  /** Who sent a request, behind the trusted proxies (default: loopback ones). */
  readonly addresses?: ClientAddresses
  /** Milliseconds clock for rate limits (tests pass their own). */
  readonly now?: () => number
  /** Where the per-address limit on crash reports is kept (default: this process's own). */
  readonly limits?: RateLimits
  /** burrowd's Prometheus metrics at `GET /metrics`, and who may read them. */
  readonly metrics?: { readonly service: ServiceMetrics; readonly token: string | null }
  /** The dashboard, the JSON API and other mounted handlers (payment webhooks, dev checkout). */
  readonly web?: {
    readonly dashboard: Dashboard
    readonly api: Api
    /** Handlers that claim their own paths, e.g. `/webhooks/paddle`. */
    readonly mounts: readonly Mount[]
  }
}

/** A handler that serves the request URLs it claims. */
export interface Mount {
  /** True for the URLs (path and query) this handler serves. */
  readonly matches: (url: string) => boolean
  readonly handle: (req: IncomingMessage, res: ServerResponse) => void | Promise<void>
}

/** Serves the service host. */
export class App {
  private readonly opts: AppOptions
  private readonly crashReportRoute: CrashReportRoute

  constructor(opts: AppOptions) {
    this.opts = opts
    const limiter = (opts.limits ?? localRateLimits).limiter('crash-reports.address', {
      capacity: CRASH_REPORTS_PER_MINUTE,
      perMs: 60_000,
      overflowGroup: networkOfRateKey,
      ...(opts.now ? { now: opts.now } : {}),
    })
    const nodeLimiter = new RateLimiter({
      capacity: CRASH_REPORTS_PER_MINUTE_PER_NODE,
      perMs: 60_000,
      ...(opts.now ? { now: opts.now } : {}),
    })
    this.crashReportRoute = new CrashReportRoute(
      opts.crashReports,
      { address: limiter, node: nodeLimiter },
      opts.addresses ?? new ClientAddresses(),
      opts.log,
    )
  }

  /** Handle one request to the service host. */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const [path = '/', search = ''] = (req.url ?? '/').split('?', 2)
    const method = req.method ?? 'GET'
    const read = method === 'GET' || method === 'HEAD'
    if (path === '/metrics' && this.opts.metrics) {
      return serveMetrics(req, res, this.opts.metrics.service, this.opts.metrics.token)
    }
    if (path === '/healthz' && read) {
      res.writeHead(200, {
        'content-type': 'text/plain; charset=utf-8',
        'cache-control': 'no-store',
      })
      res.end('ok')
      return
    }
    const asset = Object.hasOwn(ASSETS, path) ? ASSETS[path] : undefined
    if (asset) {
      if (!read) return notAllowed(res, path, 'GET, HEAD')
      const [type, body] = asset
      res.writeHead(200, {
        'content-type': type,
        'content-length': Buffer.byteLength(body),
        'cache-control': 'public, max-age=300',
        'x-content-type-options': 'nosniff',
      })
      res.end(method === 'HEAD' ? undefined : body)
      return
    }
    const web = this.opts.web
    if (web) {
      const mount = web.mounts.find((m) => m.matches(req.url ?? '/'))
      if (mount) return mount.handle(req, res)
    }
    if (path === '/' && method === 'GET' && !(req.headers.accept ?? '').includes('text/html')) {
      const body = JSON.stringify({
        service: 'burrowd',
        version: this.opts.version,
        tunnels_connected: this.opts.connections(),
      })
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(body)
      return
    }
    if (path === '/api/client/latest') {
      if (!read) return apiNotAllowed(res, path, 'GET, HEAD')
      sendClientRelease(res, this.opts.clientRelease, method === 'HEAD')
      return
    }
    if (path === '/api/crash-reports') {
      if (method !== 'POST') return notAllowed(res, path, 'POST')
      return this.crashReportRoute.handle(req, res)
    }
    if (web) {
      if (path.startsWith('/api/') && (await web.api.handle(req, res, path))) return
      if (await web.dashboard.handle(req, res, path, new URLSearchParams(search))) return
    }
    if (path === '/api' || path.startsWith('/api/')) {
      // The API's own error shape (docs/api.md), for a path it does not have too.
      return sendApiError(res, new HttpError(404, 'not_found', `no API route at ${path}`))
    }
    sendRefusal(res, 'not_found', 'not found', `nothing is served at ${path}`)
  }
}

/** Static files by path: content type and body. */
const ASSETS: Readonly<Record<string, readonly [string, string]>> = {
  '/assets/app.css': ['text/css; charset=utf-8', APP_CSS],
  '/assets/app.js': ['text/javascript; charset=utf-8', APP_JS],
  '/assets/favicon.svg': ['image/svg+xml', FAVICON_SVG],
  '/favicon.ico': ['image/svg+xml', FAVICON_SVG],
}

function apiNotAllowed(res: ServerResponse, path: string, allow: string): void {
  const err = new HttpError(405, 'method_not_allowed', `${path} accepts ${allow}`)
  sendApiError(res, err, { allow })
}

function notAllowed(res: ServerResponse, path: string, allow: string): void {
  sendRefusal(res, 'method_not_allowed', 'method not allowed', `${path} accepts ${allow}`, {
    headers: { allow },
  })
}
