/**
 * Adapts one tunnel stream to the LocalRequest/LocalResponse pair the handlers speak. Small
 * responses written in one go (head, body, end) leave as a single RESPONSE frame with the body
 * inline; anything else streams as DATA under the tunnel's flow control.
 */
import {
  ERROR_HEADER,
  MAX_CHUNK_BYTES,
  POLICY_STATUS,
  RESET_CODE,
  refusalIdsOf,
  refusalJson,
  responseHeadProblem,
  setOwnField,
  type MuxStream,
  type RequestHead,
} from '@burrow/protocol'
import type { LocalRequest, LocalResponse, ResponseHeaders } from '../relay/local-exchange.js'
import { minorGcPacer } from './minor-gc-pacer.js'

/**
 * Build the request once its body is complete, and the response writing into `stream`. `sent`
 * resolves once the whole response was handed to the tunnel (or the stream was reset): a drain
 * must wait for that, not only for the handler, whose last bytes may still be queued.
 */
export function streamExchange(
  stream: MuxStream,
  head: RequestHead,
  inlineBody: Uint8Array | undefined,
  fin: boolean,
  onReady: (req: LocalRequest, res: LocalResponse, sent: () => Promise<void>) => void,
): void {
  // Own fields only: an agent's `__proto__` header is a field like any other, and `constructor`
  // is not Object's.
  const headers: Record<string, string> = {}
  for (const [name, value] of head.headers) {
    setOwnField(headers, name, Object.hasOwn(headers, name) ? `${headers[name]}, ${value}` : value)
  }
  const res = new StreamResponse(stream)
  const sent = () =>
    stream.localDone
      ? Promise.resolve()
      : new Promise<void>((resolve) => (stream.onLocalEnd = resolve))
  const ready = (body: Uint8Array) => {
    res.requestBody = body
    const req = new TunnelRequest(stream, head, headers, body)
    // A response refused in the handler's place ends the call: the handler stops (and stops
    // reading its local server's answer, which nothing would take any more).
    res.onRefused = (why) => req.abort(new Error(why))
    onReady(req, res, sent)
  }
  if (fin) return ready(inlineBody ?? new Uint8Array(0))
  const chunks: Uint8Array[] = inlineBody ? [inlineBody] : []
  stream.read(
    (chunk) => void chunks.push(chunk),
    () => ready(Buffer.concat(chunks)),
  )
}

/**
 * A request that came through a tunnel stream. It is aborted when the stream is reset; its
 * AbortSignal is made only if a handler asks for it (most calls never need one).
 */
class TunnelRequest implements LocalRequest {
  readonly method: string
  readonly path: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: Uint8Array
  private reason: Error | null = null
  private controller: AbortController | null = null
  private listeners: ((reason: Error) => void)[] | null = null

  constructor(
    stream: MuxStream,
    head: RequestHead,
    headers: Record<string, string>,
    body: Uint8Array,
  ) {
    this.method = head.method
    this.path = head.path
    this.headers = headers
    this.body = body
    if (stream.closed) this.reason = new Error('the stream was reset')
    else stream.onReset = (_code, why) => this.abort(new Error(why))
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController()
      if (this.reason) this.controller.abort(this.reason)
    }
    return this.controller.signal
  }

  onAbort(listener: (reason: Error) => void): void {
    if (this.reason) listener(this.reason)
    else (this.listeners ??= []).push(listener)
  }

  /** Abort the request: its listeners and signal learn `reason`. */
  abort(reason: Error): void {
    if (this.reason) return
    this.reason = reason
    this.controller?.abort(reason)
    const listeners = this.listeners
    this.listeners = null
    for (const listener of listeners ?? []) listener(reason)
  }
}

/** LocalResponse over a mux stream, coalescing head + small body + end into one frame. */
class StreamResponse implements LocalResponse {
  /** The request's body, for the ids of a refusal written in the handler's place. */
  requestBody: Uint8Array = new Uint8Array(0)
  /** Called when the response was refused in the handler's place (its head cannot cross). */
  onRefused: ((why: string) => void) | null = null
  private readonly stream: MuxStream
  private head: { status: number; headers: [string, string][] } | null = null
  private pending: Uint8Array[] = []
  private pendingBytes = 0
  private headSent = false
  private flushScheduled = false

  constructor(stream: MuxStream) {
    this.stream = stream
  }

  get closed(): boolean {
    return this.stream.localDone
  }

  writeHead(status: number, headers: ResponseHeaders): void {
    if (this.head) return
    const pairs: [string, string][] = []
    for (const name in headers) {
      const value = headers[name]!
      const lower = name.toLowerCase()
      if (typeof value === 'string') pairs.push([lower, value])
      else for (const one of value) pairs.push([lower, one])
    }
    this.head = { status, headers: pairs }
    this.scheduleFlush()
  }

  write(chunk: Uint8Array): boolean {
    if (this.closed || chunk.length === 0) return !this.closed
    minorGcPacer().add(chunk.length)
    if (!this.headSent) {
      this.pending.push(chunk)
      this.pendingBytes += chunk.length
      if (this.pendingBytes > MAX_CHUNK_BYTES) this.flushHead(false)
      return true
    }
    return this.stream.write(chunk)
  }

  end(): void {
    if (this.closed) return
    if (!this.headSent) return this.flushHead(true)
    this.stream.end()
  }

  onDrain(cb: () => void): void {
    this.stream.onDrain = () => {
      this.stream.onDrain = null
      cb()
    }
  }

  /** Abort the response (the upstream failed after it started). */
  destroy(reason: string): void {
    if (!this.closed) this.stream.reset(RESET_CODE.upstream, reason)
  }

  /**
   * The local server's response head is beyond what the tunnel carries: the agent gets a 502
   * envelope saying so (with its request's ids) in place of the response, which is dropped.
   */
  private refuseHead(why: string): void {
    this.pending = []
    this.pendingBytes = 0
    const body = refusalJson(
      'upstream_unreachable',
      'upstream response too large',
      `the local MCP server's response cannot cross the tunnel: ${why}`,
      refusalIdsOf(this.requestBody),
    )
    this.stream.respond(
      {
        status: POLICY_STATUS.upstream_unreachable,
        headers: [
          ['content-type', 'application/json'],
          [ERROR_HEADER, 'upstream_unreachable'],
        ],
      },
      Buffer.from(body),
      true,
    )
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return
    this.flushScheduled = true
    // Let a synchronous write()+end() join the head so a small reply is a single frame.
    queueMicrotask(() => {
      if (!this.headSent && !this.closed) this.flushHead(false)
    })
  }

  private flushHead(fin: boolean): void {
    const head = this.head ?? { status: 200, headers: [] }
    this.headSent = true
    const problem = responseHeadProblem(head)
    if (problem !== null) {
      this.refuseHead(problem.message)
      // A handler still writing is told, so that it stops; one that ended is done anyway.
      if (!fin) this.onRefused?.(`the response was refused: ${problem.message}`)
      return
    }
    // A reply written in one piece (the common case) is sent as is, without a copy.
    const body =
      this.pendingBytes === 0
        ? undefined
        : this.pending.length === 1
          ? this.pending[0]!
          : Buffer.concat(this.pending)
    this.pending = []
    this.pendingBytes = 0
    if (body && body.length > MAX_CHUNK_BYTES) {
      this.stream.respond(head, undefined, false)
      this.stream.write(body)
      if (fin) this.stream.end()
      return
    }
    this.stream.respond(head, body, fin)
  }
}
