/**
 * `GET /metrics` on the service host: burrowd's Prometheus text. With `BURROW_METRICS_TOKEN` set,
 * a scraper sends `Authorization: Bearer <token>`; without it, only a scraper on this machine
 * that reaches burrowd directly may read (a loopback peer sending no `X-Forwarded-For`, so not a
 * stranger coming through the TLS proxy). Anyone else gets 404, as if there were no such page.
 */
import { timingSafeEqual } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { ServiceMetrics } from './service-metrics.js'

/** Answer a request for `/metrics`. */
export async function serveMetrics(
  req: IncomingMessage,
  res: ServerResponse,
  metrics: ServiceMetrics,
  token: string | null,
): Promise<void> {
  // Anyone else gets the same 404 whatever the method, as if there were no such page.
  if (!allowed(req, token)) {
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' })
    res.end('not found\n')
    return
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' })
    res.end('method not allowed\n')
    return
  }
  const { contentType, body } = await metrics.render()
  res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' })
  res.end(req.method === 'HEAD' ? undefined : body)
}

function allowed(req: IncomingMessage, token: string | null): boolean {
  if (token !== null) {
    const given = Buffer.from(/^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1] ?? '')
    const expected = Buffer.from(token)
    return given.length === expected.length && timingSafeEqual(given, expected)
  }
  const peer = req.socket.remoteAddress ?? ''
  const loopback = peer === '::1' || /^(::ffff:)?127\./.test(peer)
  return loopback && req.headers['x-forwarded-for'] === undefined
}
