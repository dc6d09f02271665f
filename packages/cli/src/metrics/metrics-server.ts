/**
 * The metrics listener of `burrow up --metrics-addr HOST:PORT` (docs/configuration.md): HTTP/1.1
 * serving `GET /metrics` in the Prometheus text format and `GET /healthz` → `ok`. Metrics are
 * optional: when the address cannot be bound, a warning names it and the cause and forwarding
 * continues without them. On a loopback address (IPv4-mapped ones included), and for requests from
 * this machine when bound to every address or a network one, only loopback Host names, IP
 * addresses and the machine's own name are answered, so a web page in the user's browser cannot
 * read the counters through DNS rebinding.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { isIP, type AddressInfo } from 'node:net'
import { hostname, networkInterfaces } from 'node:os'
import type { Logger } from '@burrow/protocol'
import type { Registry } from 'prom-client'
import { LOCAL_LISTENER_LIMITS, limitListener, type ListenerLimits } from '../listener-limits.js'
import { isLoopbackHost, isLoopbackHostHeader } from '../loopback.js'

/** A running metrics listener. */
export interface MetricsServer {
  /** Where it listens, `HOST:PORT` (the real port when 0 was asked for). */
  readonly address: string
  /** Stop listening and drop open scrape connections. */
  close(): Promise<void>
}

/**
 * Serve `registry` on `addr` (`HOST:PORT`, IPv6 in brackets). Resolves with the server, or with
 * null after logging a warning when it cannot listen there (port taken, unknown host, bad
 * address). Never rejects. `limits` bound its connections (see listener-limits.ts).
 */
export async function startMetrics(
  addr: string,
  registry: Registry,
  logger: Logger,
  limits: ListenerLimits = LOCAL_LISTENER_LIMITS,
): Promise<MetricsServer | null> {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(addr)
  const port = Number(m?.[3])
  const host = m?.[1] ?? m?.[2]
  if (host === undefined || !(port <= 65535)) {
    logger.warn(`metrics: cannot listen on ${addr}: not HOST:PORT; continuing without metrics`)
    return null
  }
  // Decided from the address actually bound (`127.1` and `2130706433` bind 127.0.0.1 too);
  // strict until then.
  let loopback = true
  const server = createServer((req, res) => {
    serve(req, res, registry, loopback).catch((err: Error) => {
      logger.debug(`metrics: ${req.method} ${req.url} failed: ${err.message}`)
      if (!res.headersSent) send(res, 500, 'internal error\n')
      else res.destroy()
    })
  })
  server.keepAliveTimeout = 5_000
  limitListener(server, limits)
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(port, host, () => {
        server.off('error', reject)
        resolve()
      })
    })
  } catch (err) {
    const e = err as NodeJS.ErrnoException
    const cause = e.code ? `${describeCode(e.code)} (${e.code})` : e.message
    logger.warn(`metrics: cannot listen on ${addr}: ${cause}; forwarding continues without metrics`)
    return null
  }
  server.on('error', (err) => logger.debug(`metrics: ${err.message}`))
  const bound = server.address() as AddressInfo
  loopback = isLoopbackHost(bound.address)
  const address = `${bound.family === 'IPv6' ? `[${bound.address}]` : bound.address}:${bound.port}`
  logger.info(`metrics: serving http://${address}/metrics`)
  return {
    address,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

/**
 * Whether a request over loopback names a Host a rebinding page cannot: a loopback name, an IP
 * address (a page's request for one is cross-origin, and its answer unreadable), or this
 * machine's own name (Debian maps it to 127.0.1.1: a scraper on the machine may use it).
 */
function hostAnswered(header: string): boolean {
  if (isLoopbackHostHeader(header)) return true
  const h = header.toLowerCase()
  const name = h.startsWith('[') ? h.slice(1, h.indexOf(']')) : h.replace(/:\d*$/, '')
  return isIP(name) !== 0 || name === hostname().toLowerCase()
}

/**
 * Whether `req` came from this machine: over loopback, or from one of its own addresses (a
 * connection to the machine's network address comes from that address).
 */
function fromThisMachine(req: IncomingMessage): boolean {
  const local = req.socket.localAddress ?? ''
  const remote = req.socket.remoteAddress ?? ''
  if (isLoopbackHost(local) || isLoopbackHost(remote) || remote === local) return true
  const bare = remote.toLowerCase().replace(/^::ffff:(?=\d+\.)/, '')
  return Object.values(networkInterfaces()).some((addresses) =>
    addresses?.some((a) => a.address.toLowerCase() === bare),
  )
}

async function serve(
  req: IncomingMessage,
  res: ServerResponse,
  registry: Registry,
  loopback: boolean,
): Promise<void> {
  // Bound to every address or to a network one, a request from this machine is checked too: a
  // DNS-rebinding page in the user's browser reaches 127.0.0.1, or the machine's own network
  // address, whatever else the listener is bound to.
  if ((loopback || fromThisMachine(req)) && !hostAnswered(req.headers.host ?? '')) {
    // Without naming the machine: a rebinding page reads this answer, and the name is often its
    // owner's (and a Host this listener answers).
    send(
      res,
      403,
      `from this machine, this metrics listener answers only to an IP address, localhost or the ` +
        `machine's host name, a defence against DNS rebinding: scrape it by one of those\n`,
    )
    return
  }
  const path = (req.url ?? '/').split('?', 1)[0]
  const read = req.method === 'GET' || req.method === 'HEAD'
  if (path !== '/metrics' && path !== '/healthz') {
    send(res, 404, 'not found: try /metrics or /healthz\n')
    return
  }
  if (!read) {
    send(res, 405, 'method not allowed: use GET\n', { allow: 'GET, HEAD' })
    return
  }
  if (path === '/healthz') {
    send(res, 200, 'ok', {}, req.method === 'HEAD')
    return
  }
  const body = await registry.metrics()
  send(res, 200, body, { 'content-type': registry.contentType }, req.method === 'HEAD')
}

function send(
  res: ServerResponse,
  status: number,
  body: string,
  headers: Record<string, string> = {},
  headOnly = false,
): void {
  res.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    ...headers,
  })
  res.end(headOnly ? undefined : body)
}

function describeCode(code: string): string {
  switch (code) {
    case 'EADDRINUSE':
      return 'the port is already in use'
    case 'EACCES':
      return 'permission denied (ports below 1024 need privileges)'
    case 'EADDRNOTAVAIL':
      return 'the address is not one of this machine'
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'the host name does not resolve'
    default:
      return 'the address cannot be bound'
  }
}
