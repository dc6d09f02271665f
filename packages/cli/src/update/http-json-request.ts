/**
 * One small JSON request to the service, for the update check and crash reports: a fresh
 * connection (no pooled sockets left behind), a deadline for the whole exchange, a bounded
 * response, and optionally no hold on the process (a background check must never keep `burrow`
 * running after it is done).
 */
import { request as httpRequest, type IncomingMessage } from 'node:http'
import { request as httpsRequest } from 'node:https'

/** What to send. */
export interface JsonRequestOptions {
  readonly method: 'GET' | 'POST'
  /** Sent as JSON with `Content-Type: application/json`. */
  readonly body?: unknown
  /** Deadline for connecting, sending and reading the whole response. */
  readonly timeoutMs: number
  /** When true the pending request does not keep the process alive. */
  readonly unref?: boolean
  /** Responses longer than this fail (default 16 KiB). */
  readonly maxResponseBytes?: number
  /** `User-Agent`, e.g. `burrow/0.1.0`. */
  readonly userAgent?: string
}

/** The answer: its status and the body parsed as JSON (undefined when it is not JSON). */
export interface JsonResponse {
  readonly status: number
  readonly json: unknown
}

/** Send one request to `url` (http or https). Rejects on network errors and on the deadline. */
export function httpJsonRequest(url: string, options: JsonRequestOptions): Promise<JsonResponse> {
  const target = new URL(url)
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest
  const body = options.body === undefined ? undefined : Buffer.from(JSON.stringify(options.body))
  const limit = options.maxResponseBytes ?? 16 * 1024
  return new Promise((resolve, reject) => {
    const req = send(target, {
      method: options.method,
      agent: false,
      headers: {
        accept: 'application/json',
        ...(options.userAgent ? { 'user-agent': options.userAgent } : {}),
        ...(body ? { 'content-type': 'application/json', 'content-length': body.length } : {}),
      },
    })
    const timer = setTimeout(
      () => req.destroy(new Error(`no answer within ${options.timeoutMs} ms`)),
      options.timeoutMs,
    )
    if (options.unref) {
      timer.unref()
      req.on('socket', (socket) => socket.unref())
    }
    const fail = (err: Error) => {
      clearTimeout(timer)
      reject(err)
    }
    req.on('error', fail)
    // Settles nothing after a resolve; catches a connection that ends without 'end' or 'error'.
    req.on('close', () => fail(new Error('the connection closed before the answer was complete')))
    req.on('response', (res: IncomingMessage) => {
      const chunks: Buffer[] = []
      let size = 0
      res.on('data', (chunk: Buffer) => {
        size += chunk.length
        if (size > limit) req.destroy(new Error(`response larger than ${limit} bytes`))
        else chunks.push(chunk)
      })
      res.on('error', fail)
      res.on('end', () => {
        clearTimeout(timer)
        let json: unknown
        try {
          json = JSON.parse(Buffer.concat(chunks).toString('utf8'))
        } catch {
          json = undefined
        }
        resolve({ status: res.statusCode ?? 0, json })
      })
    })
    req.end(body)
  })
}
