/**
 * `burrowd serve`: one HTTP port that routes each request by Host and Upgrade to the edge (tunnel
 * hostnames), the broker (WebSocket upgrades from `burrow up`) or the app (everything else), and
 * shuts down cleanly on SIGTERM/SIGINT. What it routes to is built in `wire-services.ts`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { Server as NetServer, type AddressInfo } from 'node:net'
import type { Duplex } from 'node:stream'
import { createLogger, type Logger } from '@burrow/protocol'
import { rejectUpgrade } from './broker/reject-upgrade.js'
import { inTurn } from './http/in-turn.js'
import { hostHeaderProblem } from './http/host-header.js'
import { isNodeLinkPath } from './cluster/node-links.js'
import type { ServerConfig } from './config.js'
import { answerClientError, REQUEST_TIMEOUT_MS } from './http/answer-client-error.js'
import { answerFailure } from './http/answer-failure.js'
import {
  answerStarting,
  answerStartingExpectation,
  refuseStartingUpgrade,
} from './http/answer-starting.js'
import { HttpError } from './http/http-error.js'
import { sendApiError } from './http/responses.js'
import { sendRefusal } from './http/send-refusal.js'
import { FailureLog } from './observability/failure-log.js'
import { publicUrlFor, serviceUrlFor } from './public-url.js'
import { QuietMemoryRelease } from './runtime/quiet-memory-release.js'
import { appServes } from './service-hosts.js'
import { wireServices } from './wire-services.js'

/** Milliseconds in-flight requests get to finish when burrowd stops. */
const SHUTDOWN_GRACE_MS = 10_000

/** Run the service until SIGTERM or SIGINT. */
export async function serve(config: ServerConfig): Promise<void> {
  const log = createLogger(config.logLevel, (line) => void process.stderr.write(line))
  // A request (its head and body) must arrive within a minute: a slow body holds memory.
  // Node would answer a request without a Host header itself, with a bare 400: it gets the
  // envelope here instead.
  const server = createServer({
    keepAliveTimeout: 65_000,
    requestTimeout: REQUEST_TIMEOUT_MS,
    requireHostHeader: false,
  })
  // Until the services are wired, the bound port answers that burrowd is starting.
  const refuseUpgrade = (_req: IncomingMessage, socket: Duplex) => refuseStartingUpgrade(socket)
  server.on('request', answerStarting)
  server.on('upgrade', refuseUpgrade)
  server.on('checkExpectation', answerStartingExpectation)
  server.on('clientError', answerClientError)
  // Node closes a CONNECT's connection unanswered when nobody listens: it gets the envelope.
  server.on('connect', (_req: IncomingMessage, socket: Duplex) => {
    const reason = 'CONNECT is not served here: burrowd is not a proxy'
    rejectUpgrade(socket, 'invalid_request', reason, 'CONNECT not served')
  })
  const services = await wireServices({
    config,
    log,
    listen: async () => {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject)
        server.listen(config.listen.port, config.listen.host, () => resolve())
      })
      return (server.address() as AddressInfo).port
    },
  })
  const { port, registry, lookup, edge, broker, app } = services
  server.off('request', answerStarting)
  server.off('upgrade', refuseUpgrade)
  server.off('checkExpectation', answerStartingExpectation)
  const memory =
    config.memoryReleaseSecs > 0
      ? new QuietMemoryRelease({ quietMs: config.memoryReleaseSecs * 1000, log })
      : null

  const failures = new FailureLog(log)
  // Set on SIGTERM: `/readyz` fails so that load balancers stop sending new work here.
  let draining = false
  // Public requests being answered (some go through another node's tunnel client).
  let inFlight = 0
  const answer = (req: IncomingMessage, res: ServerResponse): void => {
    // While draining, every answer closes its connection: the client's next request opens a
    // new one, which the load balancer sends to another node.
    if (draining) res.shouldKeepAlive = false
    if (req.headers.host === undefined && req.httpVersionMinor >= 1) {
      sendRefusal(
        res,
        'invalid_request',
        'Host header required',
        'HTTP/1.1 requests need a Host header',
        {
          close: true,
        },
      )
      return
    }
    const hostProblem = hostHeaderProblem(req.rawHeaders)
    if (hostProblem !== null) {
      const { message, reason } = hostProblem
      sendRefusal(res, 'invalid_request', message, reason, { close: true })
      return
    }
    const host = hostOf(req)
    const label = lookup.tunnelLabel(host)
    if (!label && (req.url ?? '').split('?', 1)[0] === '/readyz') {
      res.writeHead(draining ? 503 : 200, {
        'content-type': 'text/plain; charset=utf-8',
        'cache-control': 'no-store',
      })
      res.end(draining ? 'draining\n' : 'ready\n')
      return
    }
    if (label) {
      const started = performance.now()
      inFlight += 1
      res.once('close', () => {
        inFlight -= 1
        services.metrics.edgeAnswered(res, started)
      })
    }
    const done = label
      ? edge.handle(req, res, label, host)
      : services.handleAdmin(req, res) ||
        services.handleDomain(req, res, host).then((answered) => {
          if (answered) return undefined
          // Neither a tunnel's host nor a custom domain: the app's only on the service's own
          // hosts (service-hosts.ts); a removed custom domain, say, must not show the dashboard.
          if (appServes(config.serviceHost, host, pathOf(req))) return app.handle(req, res)
          refuseHost(res, host, config.serviceHost)
          return undefined
        })
    done.catch((err: Error) =>
      answerFailure(failures, req, res, err, label !== null && label !== undefined),
    )
  }
  // A pipelined request is answered once the answers before it are (http/in-turn.ts).
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    inTurn(req, res, () => answer(req, res))
  })
  // Node would answer an `Expect` other than 100-continue with a bare 417 of its own.
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    const reason = `Expect: ${String(req.headers.expect).slice(0, 100)} is not supported; only 100-continue is`
    // `/mcp` at any host is a tunnel's: a custom domain's name is known only by a lookup, which
    // this answer, made before any handler, does not wait for (the app serves nothing there).
    const path = (req.url ?? '').split('?', 1)[0]
    if (lookup.tunnelLabel(hostOf(req)) || path === '/mcp') {
      sendRefusal(res, 'invalid_request', 'unsupported expectation', reason, { close: true })
    } else {
      sendApiError(res, new HttpError(417, 'expectation_failed', reason), { connection: 'close' })
    }
  })
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    // An upgrade pipelined behind an answer still being written would answer into it.
    if ((socket as Duplex & { _httpMessage?: unknown })._httpMessage) {
      socket.destroy()
      return
    }
    const hostProblem = hostHeaderProblem(req.rawHeaders)
    if (hostProblem !== null) {
      rejectUpgrade(socket, 'invalid_request', hostProblem.reason, hostProblem.message)
      return
    }
    if (lookup.tunnelLabel(hostOf(req))) {
      rejectUpgrade(
        socket,
        'not_found',
        'tunnel hosts serve MCP over HTTP at /mcp; connect tunnel clients to the service host',
      )
      return
    }
    if (services.cluster && isNodeLinkPath((req.url ?? '').split('?', 1)[0]!)) {
      services.cluster.router.links.handleUpgrade(req, socket, head)
      return
    }
    if (draining) {
      // Only a connection a load balancer kept open reaches a draining node (it listens no
      // more). A tunnel client must not reconnect to the node that just told it to go: the
      // connection is closed unanswered, and the load balancer sends the upgrade (a GET, safe
      // to send again) to another node. An answer, even 503, would reach the client instead.
      socket.destroy()
      return
    }
    broker.handleUpgrade(req, socket, head).catch((err: Error) => {
      log.error(`broker: ${err.stack ?? err.message}`)
      socket.destroy()
    })
  })

  const example = publicUrlFor(config, '<subdomain>', '<account>', port)
  process.stdout.write(
    `burrowd listening on http://${formatHost(config.listen.host)}:${port}; tunnels at ${example}/mcp; ` +
      `dashboard at ${serviceUrlFor(config, port)}/\n`,
  )
  await stopped(log)

  log.info('shutting down: asking tunnel clients to reconnect later, finishing in-flight requests')
  draining = true
  memory?.stop()
  // With other nodes to go to, clients reconnect at once (through the load balancer), and a
  // request that still reaches this node waits for the node that takes its tunnel.
  services.cluster?.router.drain()
  registry.drainAll(services.cluster ? 0 : 1000)
  stopListening(server)
  const deadline = Date.now() + SHUTDOWN_GRACE_MS
  // With other nodes, also until they hold this node's tunnels (their clients moved there):
  // requests forwarded here meanwhile are still served, then go where the tunnel is.
  const moving = () => (services.cluster?.router.heldCount ?? 0) > 0
  const serving = () => (services.cluster?.router.servingCount ?? 0) > 0
  const busy = () => registry.streamCount > 0 || inFlight > 0 || moving() || serving()
  while (busy() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
  if (busy()) {
    const left = [
      registry.streamCount > 0 ? `${registry.streamCount} tunnel stream(s)` : '',
      inFlight > 0 ? `${inFlight} request(s)` : '',
      moving() ? 'tunnels not yet taken by other nodes' : '',
      serving() ? 'requests forwarded from other nodes' : '',
    ]
    log.warn(
      `the ${SHUTDOWN_GRACE_MS / 1000}s drain ended with ${left.filter(Boolean).join(', ')} left: closing`,
    )
  }
  await services.recordSeen()
  registry.closeAll()
  server.closeAllConnections()
  await services.close()
  log.info('stopped')
}

/**
 * Accept no more connections, and serve the ones already open. Not `server.close()`: it also
 * closes every kept-alive connection that is between requests, and a proxy in front (Caddy keeps
 * its connections to burrowd alive) may be sending a request on one at that moment, which it
 * does not send again when it is a POST. Kept-alive connections stay open until the drain ends;
 * a request on one is answered, with `Connection: close`.
 */
function stopListening(server: NetServer): void {
  NetServer.prototype.close.call(server)
}

/**
 * The host `req` names, lower-case, without its port, and without the trailing dot of a fully
 * qualified name (`<sub>--<slug>.<zone>.` is the tunnel's host: a front proxy passes the Host on
 * as the client spelled it, and the dot sent such a request to the app).
 */
function hostOf(req: IncomingMessage): string {
  const host = (req.headers.host ?? '').toLowerCase()
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1)
  const colon = host.lastIndexOf(':')
  const name = colon === -1 ? host : host.slice(0, colon)
  return name.endsWith('.') ? name.slice(0, -1) : name
}

/** The path of `req`'s target, without its query. */
function pathOf(req: IncomingMessage): string {
  return (req.url ?? '/').split('?', 1)[0]!
}

/** `404 tunnel_not_found` for a host burrowd serves nothing at (as for a tunnel that is not). */
function refuseHost(res: ServerResponse, host: string, serviceHost: string): void {
  sendRefusal(
    res,
    'tunnel_not_found',
    'tunnel not found',
    `nothing is served at ${host}: it is not a tunnel's host, a verified custom domain or the ` +
      `service's host (${serviceHost})`,
  )
}

function formatHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host
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
