/**
 * The local web inspector of `burrow up --inspect` (docs/configuration.md; its security in
 * docs/decisions.md, Inspector): live MCP traffic, replay, and with `--inspect-admin` the Config
 * tab (refused off loopback: it starts commands). It listens on loopback (127.0.0.1:4040 by
 * default, a free port if that is taken) and serves no data without its token; every request is
 * checked against DNS rebinding (Host) and cross-origin use (Origin) first. See request-guard.ts
 * for the checks, traffic-routes.ts and config-routes.ts for the API.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { isIP, type AddressInfo } from 'node:net'
import {
  keepWhileServing,
  limitListener,
  LOCAL_LISTENER_LIMITS,
  type ListenerLimits,
} from '../listener-limits.js'
import { UsageError } from '../cli-errors.js'
import { isLoopbackHost } from '../loopback.js'
import { silentLogger, type Logger } from '../log/logger.js'
import { bindInspector, hostForUrl } from './bind-inspector.js'
import { handleConfigRoute, type ConfigRoutesState, type InspectorLayout } from './config-routes.js'
import { HttpProblem, sendJson, sendProblem, sendText } from './inspector-http.js'
import { inspectorToken } from './inspector-token.js'
import { pageAsset } from './page-assets.js'
import { inspectorPage, refusalPage } from './page-html.js'
import type { ReplayResult } from './replay-exchange.js'
import {
  allowedHostsFor,
  checkRequest,
  type GuardOptions,
  type GuardVerdict,
} from './request-guard.js'
import { PROOF_PATH, serveTokenProof } from './token-proof.js'
import { handleTrafficRoute } from './traffic-routes.js'
import type { TrafficRecorder } from './traffic-recorder.js'

export type { InspectorLayout } from './config-routes.js'

/** Options of `startInspector`; the first four come from `UpOptions.inspect`. */
export interface InspectorOptions {
  /** `HOST:PORT`, e.g. `127.0.0.1:4040`. */
  readonly addr: string
  /**
   * True when the user chose the address: then a bind failure is an error, not a fallback. A
   * fixed token has no fallback either: its bookmarked URL would reach whoever holds the port.
   */
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
  /** Bounds on connections (see listener-limits.ts); tests use shorter ones. */
  readonly limits?: ListenerLimits
}

/** A running inspector. */
export interface Inspector {
  /** The address to open, the token in its fragment: `http://127.0.0.1:4040/#token=…`. */
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
    const path = url.pathname
    const page = path === '/' || path === '/index.html'
    const asset = page ? null : pageAsset(path, layout !== null)
    const reading = req.method === 'GET' || req.method === 'HEAD'
    const proof = path === PROOF_PATH && reading
    const shell = (page || asset !== null || proof) && reading
    const verdict = checkRequest(req, guard, shell)
    if (!verdict.ok) return refuse(req, res, verdict)
    // A replay waits for the local server, the live feed for traffic: silence is fine now.
    if (!shell) keepWhileServing(req)
    if (proof) return serveTokenProof(res, url, token, req.headers.host ?? '')
    if (page || asset) {
      if (!shell) throw new HttpProblem(405, 'use GET here')
      // The shell holds no data; its script takes the token from the URL's fragment.
      if (asset) return sendText(res, 200, asset.type, asset.text)
      return sendText(res, 200, 'text/html', inspectorPage({ admin: layout !== null }))
    }
    const routes = { recorder: options.recorder, replay: options.replay, logger: log }
    if (await handleTrafficRoute(req, res, url, routes)) return
    if (layout && (await handleConfigRoute(req, res, url, layout, configState, log))) return
    throw new HttpProblem(404, `no such page: ${path}`)
  }

  limitListener(server, options.limits ?? LOCAL_LISTENER_LIMITS)
  const bound = await bindInspector(server, options.addr, {
    explicit: options.addrExplicit,
    fixedToken: options.token !== null,
    log,
  })
  const address = (server.address() as AddressInfo).address
  const close = (): Promise<void> =>
    new Promise<void>((resolve) => {
      server.close(() => resolve())
      server.closeAllConnections()
    })
  // Decided from the address bound: `127.1` and `[::ffff:7f00:1]` are 127.0.0.1 too.
  const loopback = isLoopbackHost(address)
  if (layout && !loopback) {
    // Nothing has been served yet: the guard is not set.
    await close()
    throw new UsageError(adminOffLoopback(bound.host, bound.port))
  }
  // A host name is printed as the address it was bound to: `localhost` listens on one of
  // 127.0.0.1 and ::1, and a browser opening `http://localhost:…` may try the other first, where
  // another local user can listen on the same port and read the token from the URL's fragment.
  const urlHost = hostForUrl(isIP(bound.host) === 0 ? address : bound.host)
  const allowedHosts = allowedHostsFor(bound.host, address, bound.port)
  allowedHosts.add(`${urlHost.toLowerCase()}:${bound.port}`)
  guard = { token, allowedHosts }
  if (!loopback) {
    log.warn(
      `inspector: listening on ${bound.host}, which is not a loopback address; anyone who can reach it and has the token sees your MCP traffic`,
    )
  }
  const url = `http://${urlHost}:${bound.port}/#token=${token}`
  return {
    url,
    port: bound.port,
    token,
    close,
  }
}

/**
 * Why `--inspect-admin` is refused off loopback: the Config tab starts the commands it is given,
 * and its token would cross the network in every request, unencrypted (plain HTTP), so whoever
 * sees one request there could run programs as the user.
 */
function adminOffLoopback(host: string, port: number): string {
  return (
    `--inspect-admin needs the inspector on a loopback address, not ${hostForUrl(host)}:${port}: ` +
    'its Config tab starts the commands it is given, and its token would cross the network ' +
    'unencrypted. Keep the inspector on 127.0.0.1 and reach it from another machine through an ' +
    `SSH tunnel (ssh -L ${port}:127.0.0.1:${port} …), or leave --inspect-admin out`
  )
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
