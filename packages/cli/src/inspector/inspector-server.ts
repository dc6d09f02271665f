/**
 * The local web inspector of `burrow up --inspect` (docs/configuration.md; its security in
 * docs/decisions.md, Inspector): live MCP traffic, replay, and with `--inspect-admin` the Config
 * tab. It listens on loopback (127.0.0.1:4040 by default, a free port if that is taken) and serves
 * nothing without its token; every request is checked against DNS rebinding (Host) and cross-origin
 * use (Origin) first. See request-guard.ts for the checks, traffic-routes.ts and config-routes.ts
 * for the API.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { silentLogger, type Logger } from '../log/logger.js'
import { bindInspector, hostForUrl } from './bind-inspector.js'
import { handleConfigRoute, type ConfigRoutesState, type InspectorLayout } from './config-routes.js'
import { HttpProblem, SECURITY_HEADERS, sendJson, sendProblem, sendText } from './inspector-http.js'
import { inspectorToken } from './inspector-token.js'
import { pageAsset } from './page-assets.js'
import { inspectorPage, refusalPage } from './page-html.js'
import type { ReplayResult } from './replay-exchange.js'
import {
  allowedHostsFor,
  checkRequest,
  cookieNameFor,
  tokenCookie,
  type GuardOptions,
  type GuardVerdict,
} from './request-guard.js'
import { handleTrafficRoute } from './traffic-routes.js'
import type { TrafficRecorder } from './traffic-recorder.js'

export type { InspectorLayout } from './config-routes.js'

/** Options of `startInspector`; the first four come from `UpOptions.inspect`. */
export interface InspectorOptions {
  /** `HOST:PORT`, e.g. `127.0.0.1:4040`. */
  readonly addr: string
  /** True when the user chose the address: then a bind failure is an error, not a fallback. */
  readonly addrExplicit: boolean
  /** Fixed token (BURROW_INSPECT_TOKEN), or null for a fresh random one. */
  readonly token: string | null
  /** Serve the Config tab and its routes (`--inspect-admin`); needs `layout`. */
  readonly admin: boolean
  readonly recorder: TrafficRecorder
  /** Replays a recorded exchange (see `createReplayer`). */
  readonly replay: (exchangeId: number) => Promise<ReplayResult>
  /** What the Config tab reads and changes; required when `admin`. */
  readonly layout?: InspectorLayout
  readonly logger?: Logger
}

/** A running inspector. */
export interface Inspector {
  /** The address to open, with the token: `http://127.0.0.1:4040/?token=…`. */
  readonly url: string
  /** The port actually bound (differs from the requested one after a fallback). */
  readonly port: number
  readonly token: string
  /** Stop listening and drop open connections (live feeds included). */
  close(): Promise<void>
}

/** Start the inspector. Throws UsageError when an explicit address cannot be bound. */
export async function startInspector(options: InspectorOptions): Promise<Inspector> {
  const log = options.logger ?? silentLogger
  if (options.admin && !options.layout) throw new Error('startInspector: admin needs a layout')
  const token = inspectorToken(options.token)
  const layout = options.admin ? (options.layout ?? null) : null
  const configState: ConfigRoutesState = { busy: false }
  let guard: GuardOptions | null = null

  const server = createServer((req, res) => {
    serve(req, res).catch((err: unknown) => {
      if (err instanceof HttpProblem) {
        if (!res.headersSent) sendProblem(res, err)
        else res.destroy()
        return
      }
      log.warn(`inspector: ${req.method} ${req.url} failed: ${(err as Error).stack ?? String(err)}`)
      if (!res.headersSent) sendJson(res, 500, { error: 'internal error in the inspector' })
      else res.destroy()
    })
  })

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!guard) return sendJson(res, 503, { error: 'the inspector is starting' })
    const url = new URL(req.url ?? '/', 'http://inspector.invalid')
    const verdict = checkRequest(req, url, guard)
    if (!verdict.ok) return refuse(req, res, verdict)
    const cookie: Record<string, string> = verdict.viaQuery
      ? { 'set-cookie': tokenCookie(guard.cookieName, token) }
      : {}
    const path = url.pathname
    if (path === '/' || path === '/index.html') {
      if (req.method !== 'GET') throw new HttpProblem(405, 'use GET here')
      if (verdict.viaQuery) {
        // Keep the token out of the address bar and history: the cookie carries it from now on.
        res.writeHead(303, { ...SECURITY_HEADERS, ...cookie, location: '/' })
        res.end()
        return
      }
      return sendText(res, 200, 'text/html', inspectorPage({ admin: layout !== null }), cookie)
    }
    const asset = pageAsset(path, layout !== null)
    if (asset) {
      if (req.method !== 'GET') throw new HttpProblem(405, 'use GET here')
      return sendText(res, 200, asset.type, asset.text, cookie)
    }
    for (const [name, value] of Object.entries(cookie)) res.setHeader(name, value)
    const routes = { recorder: options.recorder, replay: options.replay, logger: log }
    if (await handleTrafficRoute(req, res, url, routes)) return
    if (layout && (await handleConfigRoute(req, res, url, layout, configState, log))) return
    throw new HttpProblem(404, `no such page: ${path}`)
  }

  const bound = await bindInspector(server, options.addr, options.addrExplicit, log)
  guard = {
    token,
    allowedHosts: allowedHostsFor(bound.host, bound.port),
    cookieName: cookieNameFor(bound.port),
  }
  if (!isLoopback(bound.host)) {
    log.warn(
      `inspector: listening on ${bound.host}, which is not a loopback address; anyone who can reach it and has the token sees your MCP traffic`,
    )
  }
  const url = `http://${hostForUrl(bound.host)}:${bound.port}/?token=${token}`
  return {
    url,
    port: bound.port,
    token,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

function refuse(
  req: IncomingMessage,
  res: ServerResponse,
  verdict: Extract<GuardVerdict, { ok: false }>,
): void {
  const headers: Record<string, string> =
    verdict.status === 401 ? { 'www-authenticate': 'Bearer realm="burrow-inspector"' } : {}
  if ((req.headers.accept ?? '').includes('text/html')) {
    sendText(res, verdict.status, 'text/html', refusalPage(verdict.status, verdict.reason), headers)
  } else {
    sendJson(res, verdict.status, { error: verdict.reason }, headers)
  }
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\./.test(host)
}
