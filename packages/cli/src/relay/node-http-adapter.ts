/**
 * Serves a `RequestHandler` on a plain node:http server, so a handler written for tunnelled
 * requests (the MCP front, say) can be reached on a real port by tests, benchmarks and local
 * debugging. It does what the tunnel does before a handler sees a request: buffers the body up to
 * a bound, drops hop-by-hop headers, Host and Origin, and aborts the signal when the client
 * hangs up.
 */
import {
  createServer,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type Server,
  type ServerResponse,
} from 'node:http'
import { HOP_BY_HOP_HEADERS } from '@burrow/protocol'
import { silentLogger, type Logger } from '../log/logger.js'
import type { LocalRequest, LocalResponse, RequestHandler } from './local-exchange.js'

/** Options of `serveOverHttp`. */
export interface ServeOverHttpOptions {
  /** Largest request body accepted; larger ones get 413. Default 4 MiB. */
  readonly maxBodyBytes?: number
  readonly logger?: Logger
}

// Hop-by-hop headers and the ones the edge strips before the tunnel.
const DROPPED: ReadonlySet<string> = new Set([...HOP_BY_HOP_HEADERS, 'host', 'origin'])

/**
 * An http.Server (not yet listening) whose requests go to `handler`. Closing the server does not
 * close the handler.
 */
export function serveOverHttp(handler: RequestHandler, options: ServeOverHttpOptions = {}): Server {
  const log = options.logger ?? silentLogger
  const maxBody = options.maxBodyBytes ?? 4 * 1024 * 1024
  return createServer((req, res) => {
    const abort = new AbortController()
    // 'close' before the response finished means the client went away.
    res.once('close', () => {
      if (!res.writableFinished) abort.abort()
    })
    readBody(req, maxBody)
      .then(
        async (body) => {
          if (body === null) {
            res.writeHead(413, { 'content-type': 'text/plain' }).end('request body too large\n')
            return
          }
          const local: LocalRequest = {
            method: req.method ?? 'GET',
            path: req.url ?? '/',
            headers: headersOf(req),
            body,
            signal: abort.signal,
          }
          await handler.handle(local, localResponse(res))
        },
        (err: Error) => {
          log.debug(`http adapter: reading the request body failed: ${err.message}`)
          res.destroy()
        },
      )
      .catch((err: unknown) => {
        log.error(`http adapter: handler failed: ${err instanceof Error ? err.stack : String(err)}`)
        if (!res.headersSent)
          res.writeHead(500, { 'content-type': 'text/plain' }).end('internal error\n')
        else res.destroy()
      })
  })
}

/** The whole body, or null when it exceeds `max` bytes (the rest is read and discarded). */
function readBody(req: IncomingMessage, max: number): Promise<Uint8Array | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (chunk: Buffer) => {
      size += chunk.length
      // Keep reading past the limit so the 413 can still be written on this connection.
      if (size <= max) chunks.push(chunk)
    })
    req.once('end', () => resolve(size > max ? null : Buffer.concat(chunks)))
    req.once('error', reject)
  })
}

function headersOf(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || DROPPED.has(name)) continue
    headers[name] = Array.isArray(value) ? value.join(', ') : value
  }
  return headers
}

function localResponse(res: ServerResponse): LocalResponse {
  return {
    writeHead(status, headers) {
      if (res.destroyed || res.headersSent) return
      res.writeHead(status, headers as OutgoingHttpHeaders)
      // Send the head now: an SSE response may stay silent for a while and the agent is waiting.
      res.flushHeaders()
    },
    write(chunk) {
      if (res.destroyed || res.writableEnded) return true
      return res.write(chunk)
    },
    end() {
      if (!res.destroyed && !res.writableEnded) res.end()
    },
    onDrain(cb) {
      res.once('drain', cb)
    },
    get closed() {
      return res.destroyed || res.writableEnded
    },
  }
}
