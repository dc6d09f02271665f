/**
 * Raw HTTP requests to burrowd with an explicit Host header, the way an agent reaches a public
 * tunnel URL (`<sub>--acme.localhost:<port>`) without DNS: node:http connects to 127.0.0.1 and
 * sends the Host we choose, which `fetch` does not allow. No connection pooling, so nothing keeps
 * the test process alive.
 */
import {
  request,
  type ClientRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type OutgoingHttpHeaders,
} from 'node:http'

/** A finished response. */
export interface EdgeResponse {
  readonly status: number
  readonly headers: IncomingHttpHeaders
  /** Header names and values as received, `[name, value, …]`. */
  readonly rawHeaders: readonly string[]
  readonly body: Buffer
  readonly text: string
}

/** What to send. */
export interface EdgeRequestOptions {
  readonly method?: string
  readonly path?: string
  readonly headers?: OutgoingHttpHeaders
  /** Body sent whole (with Content-Length unless `chunked`). */
  readonly body?: string | Buffer
  /** Send the body with Transfer-Encoding: chunked (no Content-Length). */
  readonly chunked?: boolean
}

/** A request whose response is still streaming in. */
export interface OpenRequest {
  readonly req: ClientRequest
  /** Resolves with the response head; rejects when the request fails first. */
  readonly response: Promise<IncomingMessage>
}

/** `sub--acme.localhost:port` from a public URL such as `http://sub--acme.localhost:port`. */
export function hostOf(publicUrl: string): string {
  return new URL(publicUrl).host
}

/** Start a request to 127.0.0.1:`port` with Host `host`; the body (if any) is sent and ended. */
export function openRequest(
  port: number,
  host: string,
  opts: EdgeRequestOptions = {},
): OpenRequest {
  const body = opts.body === undefined ? undefined : Buffer.from(opts.body)
  const headers: OutgoingHttpHeaders = { host, ...opts.headers }
  if (body && !opts.chunked && headers['content-length'] === undefined)
    headers['content-length'] = String(body.length)
  const req = request({
    host: '127.0.0.1',
    port,
    method: opts.method ?? 'GET',
    path: opts.path ?? '/mcp',
    headers,
    agent: false,
  })
  const response = new Promise<IncomingMessage>((resolve, reject) => {
    req.once('response', resolve)
    req.once('error', reject)
  })
  // Errors after the response head (a reset socket) are the caller's to observe on the response.
  response.catch(() => {})
  req.on('error', () => {})
  if (body) req.write(body)
  req.end()
  return { req, response }
}

/** Read a response to its end; rejects when it is cut off before a clean end. */
export function readAll(res: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    res.on('data', (c: Buffer) => chunks.push(c))
    res.once('end', () => {
      if (res.complete) resolve(Buffer.concat(chunks))
      else reject(new Error('response ended before it was complete'))
    })
    res.once('error', reject)
    res.once('aborted', () => reject(new Error('response aborted')))
  })
}

/** Send a request and read the whole response. */
export async function edgeRequest(
  port: number,
  host: string,
  opts: EdgeRequestOptions = {},
): Promise<EdgeResponse> {
  const res = await openRequest(port, host, opts).response
  const body = await readAll(res)
  return {
    status: res.statusCode ?? 0,
    headers: res.headers,
    rawHeaders: res.rawHeaders,
    body,
    text: body.toString('utf8'),
  }
}

/** POST one JSON-RPC message (or any JSON value) to `/mcp`. */
export function postJson(
  port: number,
  host: string,
  message: unknown,
  headers: OutgoingHttpHeaders = {},
): Promise<EdgeResponse> {
  return edgeRequest(port, host, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify(message),
  })
}

/** A response being read as it streams in. */
export interface ResponseReader {
  /** Everything received so far, as text. */
  text(): string
  /** Wait until the text received so far contains `needle`; returns it. */
  until(needle: string, ms?: number): Promise<string>
  /** Resolves with the whole text at a clean end; rejects when the response is cut off. */
  readonly done: Promise<string>
}

/** Start reading `res` (from its first byte) so a test can follow it as it streams. */
export function collect(res: IncomingMessage): ResponseReader {
  let seen = ''
  const waiters = new Set<() => void>()
  res.setEncoding('utf8')
  res.on('data', (chunk: string) => {
    seen += chunk
    for (const waiter of [...waiters]) waiter()
  })
  const done = new Promise<string>((resolve, reject) => {
    res.once('end', () => {
      if (res.complete) resolve(seen)
      else reject(new Error('response ended before it was complete'))
    })
    res.once('aborted', () => reject(new Error('response aborted')))
    res.once('error', reject)
    res.once('close', () => {
      if (!res.complete) reject(new Error('response closed before it was complete'))
    })
  })
  done.catch(() => {})
  return {
    text: () => seen,
    done,
    until(needle, ms = 5_000) {
      return new Promise<string>((resolve, reject) => {
        const check = () => {
          if (!seen.includes(needle)) return
          finish()
          resolve(seen)
        }
        const timer = setTimeout(() => {
          finish()
          reject(
            new Error(`no ${JSON.stringify(needle)} within ${ms} ms; got ${JSON.stringify(seen)}`),
          )
        }, ms)
        const finish = () => {
          clearTimeout(timer)
          waiters.delete(check)
        }
        waiters.add(check)
        const ended = () => {
          check()
          if (!waiters.has(check)) return
          finish()
          reject(
            new Error(
              `response ended without ${JSON.stringify(needle)}; got ${JSON.stringify(seen)}`,
            ),
          )
        }
        done.then(ended, ended)
        check()
      })
    },
  }
}
