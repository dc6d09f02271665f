/**
 * Counts requests and bytes for single-upstream mode, where no aggregator is there to call the
 * metrics hooks: wraps the one `RequestHandler` and reports each tunnelled request to the
 * upstream's counters (`burrow_upstream_requests_total`, `burrow_upstream_bytes_total`).
 */
import { isBodyProblem, readJsonRpcBody } from '@burrow/protocol'
import type { LocalRequest, LocalResponse, RequestHandler } from '../relay/local-exchange.js'

/** The counters a `MeteredHandler` feeds (`CliMetrics` has them). */
export interface RequestMetrics {
  request(name: string, method: string): void
  bytes(name: string, direction: 'in' | 'out', n: number): void
}

/** POST bodies up to this size are parsed for their JSON-RPC method names. */
const PARSE_LIMIT_BYTES = 1024 * 1024

/** A handler that counts what passes through it, then does what `inner` does. */
export class MeteredHandler implements RequestHandler {
  readonly #inner: RequestHandler
  readonly #metrics: RequestMetrics
  readonly #upstream: string

  /** `upstream` is the label value: the upstream's name, or `default` for an unnamed one. */
  constructor(inner: RequestHandler, metrics: RequestMetrics, upstream = 'default') {
    this.#inner = inner
    this.#metrics = metrics
    this.#upstream = upstream
  }

  async handle(req: LocalRequest, res: LocalResponse): Promise<void> {
    const name = this.#upstream
    for (const method of methodsOf(req)) this.#metrics.request(name, method)
    // Directions as the aggregator counts them: `out` is sent to the upstream, `in` comes back.
    this.#metrics.bytes(name, 'out', req.body.length)
    await this.#inner.handle(
      req,
      counting(res, (n) => this.#metrics.bytes(name, 'in', n)),
    )
  }

  close(): Promise<void> {
    return this.#inner.close()
  }

  started(): Promise<void> {
    return this.#inner.started?.() ?? Promise.resolve()
  }

  failure(): Promise<Error> {
    return this.#inner.failure?.() ?? new Promise<Error>(() => {})
  }
}

/**
 * The JSON-RPC methods in a POST body (one per message of a batch), or the HTTP method for a GET
 * stream, a DELETE, a body of responses only, or one that is not JSON.
 */
export function methodsOf(req: Pick<LocalRequest, 'method' | 'body'>): string[] {
  if (req.method !== 'POST' || req.body.length === 0 || req.body.length > PARSE_LIMIT_BYTES)
    return [req.method]
  const body = readJsonRpcBody(req.body)
  if (isBodyProblem(body)) return [req.method]
  const methods: string[] = []
  for (const message of body.messages) {
    // An invalid message still counts under the method it names, if it names one.
    const method = message.kind === 'response' ? null : message.method
    if (method !== null) methods.push(method)
  }
  return methods.length > 0 ? methods : [req.method]
}

/** `res`, calling `count` with the size of every body chunk written. */
function counting(res: LocalResponse, count: (n: number) => void): LocalResponse {
  const wrapped: LocalResponse = {
    writeHead: (status, headers) => res.writeHead(status, headers),
    write: (chunk) => {
      count(chunk.length)
      return res.write(chunk)
    },
    end: () => res.end(),
    onDrain: (cb) => res.onDrain(cb),
    get closed() {
      return res.closed
    },
  }
  const destroy = res.destroy?.bind(res)
  return destroy ? Object.assign(wrapped, { destroy }) : wrapped
}
