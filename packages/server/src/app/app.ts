/**
 * The service host's own pages and API: everything that is not a tunnel hostname or a tunnel
 * WebSocket. For now the health check and a short description; the JSON API and dashboard mount
 * here.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { sendRefusal } from '../edge/send-refusal.js'

/** What the app reports about the running service. */
export interface AppOptions {
  readonly version: string
  readonly connections: () => number
}

/** Serves the service host. */
export class App {
  private readonly opts: AppOptions

  constructor(opts: AppOptions) {
    this.opts = opts
  }

  /** Handle one request to the service host. */
  handle(req: IncomingMessage, res: ServerResponse): void {
    const path = (req.url ?? '/').split('?', 1)[0]
    if (path === '/healthz' && (req.method === 'GET' || req.method === 'HEAD')) {
      res.writeHead(200, {
        'content-type': 'text/plain; charset=utf-8',
        'cache-control': 'no-store',
      })
      res.end('ok')
      return
    }
    if (path === '/' && req.method === 'GET') {
      const body = JSON.stringify({
        service: 'burrowd',
        version: this.opts.version,
        tunnels_connected: this.opts.connections(),
      })
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(body)
      return
    }
    sendRefusal(res, 'not_found', 'not found', `nothing is served at ${path}`)
  }
}
