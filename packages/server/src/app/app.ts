/**
 * The service host's own pages and API: everything that is not a tunnel hostname or a tunnel
 * WebSocket. The health check, a short description, the client release check
 * (`GET /api/client/latest`) and crash reports from clients (`POST /api/crash-reports`); the
 * rest of the JSON API and the dashboard mount here.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Logger } from '@burrow/protocol'
import { sendRefusal } from '../edge/send-refusal.js'
import { sendClientRelease, type ClientRelease } from './client-release.js'
import { CrashReportRoute, type CrashReportSink } from './crash-report-route.js'
import { RateLimiter } from './rate-limiter.js'

/** Crash reports one client address may send per minute (a burst of this many, then refilled). */
export const CRASH_REPORTS_PER_MINUTE = 30

/** What the app reports about the running service, and where it stores what clients send. */
export interface AppOptions {
  readonly version: string
  readonly connections: () => number
  /** Announced at `GET /api/client/latest`. */
  readonly clientRelease: ClientRelease
  /** Stores crash reports (the store's `crashReports`). */
  readonly crashReports: CrashReportSink
  readonly log: Logger
  /** Milliseconds clock for rate limits (tests pass their own). */
  readonly now?: () => number
}

/** Serves the service host. */
export class App {
  private readonly opts: AppOptions
  private readonly crashReportRoute: CrashReportRoute

  constructor(opts: AppOptions) {
    this.opts = opts
    const limiter = new RateLimiter({
      capacity: CRASH_REPORTS_PER_MINUTE,
      perMs: 60_000,
      ...(opts.now ? { now: opts.now } : {}),
    })
    this.crashReportRoute = new CrashReportRoute(opts.crashReports, limiter, opts.log)
  }

  /** Handle one request to the service host. */
  handle(req: IncomingMessage, res: ServerResponse): void | Promise<void> {
    const path = (req.url ?? '/').split('?', 1)[0]
    const method = req.method ?? 'GET'
    const read = method === 'GET' || method === 'HEAD'
    if (path === '/healthz' && read) {
      res.writeHead(200, {
        'content-type': 'text/plain; charset=utf-8',
        'cache-control': 'no-store',
      })
      res.end('ok')
      return
    }
    if (path === '/' && method === 'GET') {
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
      if (!read) return notAllowed(res, path, 'GET, HEAD')
      sendClientRelease(res, this.opts.clientRelease, method === 'HEAD')
      return
    }
    if (path === '/api/crash-reports') {
      if (method !== 'POST') return notAllowed(res, path, 'POST')
      return this.crashReportRoute.handle(req, res)
    }
    sendRefusal(res, 'not_found', 'not found', `nothing is served at ${path}`)
  }
}

function notAllowed(res: ServerResponse, path: string, allow: string): void {
  sendRefusal(res, 'method_not_allowed', 'method not allowed', `${path} accepts ${allow}`, {
    headers: { allow },
  })
}
