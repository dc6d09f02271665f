/**
 * A real webhook receiver for tests: an HTTP server on 127.0.0.1 port 0 that records every
 * request (headers and exact body) and answers from a script of responses, 200 once the script
 * runs out. Tests await `waitFor(n)` instead of sleeping.
 */

import { createServer } from 'node:http'
import type { IncomingHttpHeaders, ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/** One request the receiver got. */
export interface ReceivedWebhook {
  readonly method: string
  readonly path: string
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

/** How the receiver answers one request: a response, or `'hang'` (never answers). */
export type ReceiverAnswer =
  | { readonly status: number; readonly headers?: Record<string, string>; readonly body?: string }
  | 'hang'

/** A running receiver. */
export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>/hooks`. */
  readonly url: string
  readonly port: number
  readonly received: readonly ReceivedWebhook[]
  /** Queue answers for the next requests, in order. */
  respond(...answers: ReceiverAnswer[]): void
  /** Answer every request not covered by `respond` with this, or by calling it (default 200). */
  respondAlways(answer: ReceiverAnswer | ((request: ReceivedWebhook) => ReceiverAnswer)): void
  /** Resolves once `count` requests in total have arrived. */
  waitFor(count: number): Promise<void>
  close(): Promise<void>
}

/** Start a receiver. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = []
  const script: ReceiverAnswer[] = []
  let fallback: ReceiverAnswer | ((request: ReceivedWebhook) => ReceiverAnswer) = {
    status: 200,
    body: 'ok',
  }
  const waiters: { count: number; resolve: () => void }[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const request: ReceivedWebhook = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      }
      received.push(request)
      answer(res, script.shift() ?? (typeof fallback === 'function' ? fallback(request) : fallback))
      for (const waiter of waiters.filter((w) => received.length >= w.count)) {
        waiters.splice(waiters.indexOf(waiter), 1)
        waiter.resolve()
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    port,
    received,
    respond: (...answers) => void script.push(...answers),
    respondAlways: (a) => void (fallback = a),
    waitFor: (count) =>
      received.length >= count
        ? Promise.resolve()
        : new Promise((resolve) => waiters.push({ count, resolve })),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

function answer(res: ServerResponse, how: ReceiverAnswer): void {
  if (how === 'hang') return
  res.writeHead(how.status, how.headers)
  res.end(how.body ?? '')
}

/** A received request's headers as the `standardwebhooks` verifier takes them. */
export function webhookHeaders(request: ReceivedWebhook): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(request.headers)) {
    if (typeof value === 'string') headers[name] = value
  }
  return headers
}
