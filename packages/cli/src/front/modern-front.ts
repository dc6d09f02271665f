/**
 * The front's 2026-07-28 side: requests without sessions, each naming its revision and client in
 * `_meta`. `McpFront` hands every POST whose body is of that era here. Mirrored headers and the
 * metadata are checked first (400 with -32020, -32022 or -32602, as the transport asks);
 * `server/discover` is answered from the backend's handshake; `subscriptions/listen` opens a
 * notification stream; methods the revision removed get 404; a retry carrying a `requestState`
 * resumes its parked call; anything else becomes a `ModernCall` on a seat of its own.
 * docs/decisions.md (2026-07-28 in the front) tells why it is built this way.
 */
import {
  JSONRPC_CODE,
  LEGACY_PROTOCOL_VERSIONS,
  mirroredHeaderProblem,
  MODERN_PROTOCOL_VERSIONS,
  requestMetaOf,
  type JsonRpcRequest,
  type RequestMeta,
} from '@burrow/protocol'
import type { Logger } from '../log/logger.js'
import type { LocalRequest, LocalResponse } from '../relay/local-exchange.js'
import { InputBridge, PARKED_PER_AGENT } from './input-bridge.js'
import { replyError, replyJson } from './json-reply.js'
import type { McpBackend } from './mcp-backend.js'
import { ModernCall } from './modern-call.js'
import { honoredFilter, ListenStream } from './modern-listen.js'
import { ModernSeat } from './modern-seat.js'
import { discoverResult } from './modern-translation.js'
import { RpcError } from './rpc-error.js'

/** Methods of the 2025 revisions that 2026-07-28 removed: 404 like any unknown method. */
const REMOVED_METHODS: ReadonlySet<string> = new Set([
  'initialize',
  'ping',
  'logging/setLevel',
  'resources/subscribe',
  'resources/unsubscribe',
])

/** Options of `ModernFront`. */
export interface ModernFrontOptions {
  readonly backend: McpBackend
  readonly logger: Logger
  readonly keepAliveMs: number
  /** How long a call waits for the retry after `input_required`. Default 10 minutes. */
  readonly inputWaitMs?: number
  /** Calls waiting for a retry at once (each holds a session of the local server). */
  readonly maxParked?: number
  /** Calls of one named agent waiting at once. Default `PARKED_PER_AGENT`. */
  readonly maxParkedPerAgent?: number
}

/** Why a waiting call was ended to make a place for another agent's. */
const PUSHED_OUT =
  'too many requests were waiting for input from their clients; the oldest of the client ' +
  'with the most waiting was ended'

/** Serves 2026-07-28 requests over a 2025 backend. */
export class ModernFront {
  readonly #opts: ModernFrontOptions
  readonly #bridge: InputBridge<ModernCall>
  readonly #calls = new Set<ModernCall>()
  readonly #streams = new Set<ListenStream>()

  constructor(options: ModernFrontOptions) {
    this.#opts = options
    this.#bridge = new InputBridge<ModernCall>(
      options.maxParked,
      options.maxParkedPerAgent ?? PARKED_PER_AGENT,
      // A call pushed out for another agent's ends; its agent's retry is then a new call.
      (call) => call.cancel(PUSHED_OUT),
    )
  }

  /** Calls waiting for an agent's retry (for tests and diagnostics). */
  get parkedCalls(): number {
    return this.#bridge.size
  }

  /** Answer one 2026-07-28 request; resolves when its response is complete. */
  async request(req: LocalRequest, res: LocalResponse, message: JsonRpcRequest): Promise<void> {
    const meta = requestMetaOf(message.params)
    const problem = requestProblem(req.headers, message, meta)
    if (problem) {
      const { code, text, data } = problem
      return replyError(res, 400, message.id, code, text, data)
    }
    if (REMOVED_METHODS.has(message.method)) {
      const text = `Method not found: ${message.method} is not part of MCP ${meta.protocolVersion}`
      return replyError(res, 404, message.id, JSONRPC_CODE.methodNotFound, text)
    }
    const state = message.params?.requestState
    if (state !== undefined) return this.#resume(req, res, message, state)
    let opened: Awaited<ReturnType<typeof ModernSeat.open>>
    try {
      const agent = req.headers['burrow-agent']
      opened = await ModernSeat.open(this.#opts.backend, meta, req.signal, agent)
    } catch (err) {
      const error =
        err instanceof RpcError ? err : new RpcError(JSONRPC_CODE.serverError, String(err))
      return replyError(res, 503, message.id, error.code, error.message, error.data)
    }
    const { seat, init } = opened
    if (message.method === 'server/discover') {
      seat.close()
      return replyJson(res, 200, { jsonrpc: '2.0', id: message.id, result: discoverResult(init) })
    }
    if (message.method === 'subscriptions/listen') {
      const filter = honoredFilter(message.params?.notifications, init)
      const { keepAliveMs, logger } = this.#opts
      const stream = new ListenStream(seat, message, filter, res, keepAliveMs, logger)
      this.#streams.add(stream)
      await stream.serve(req.signal)
      this.#streams.delete(stream)
      return
    }
    const call = new ModernCall({
      seat,
      request: message,
      meta,
      agent: req.headers['burrow-agent'],
      bridge: this.#bridge,
      keepAliveMs: this.#opts.keepAliveMs,
      parkMs: this.#opts.inputWaitMs ?? 600_000,
      logger: this.#opts.logger,
      onDone: (done) => this.#calls.delete(done),
    })
    this.#calls.add(call)
    await call.start(res, req.signal)
  }

  /** End every call and stream (the front is closing). */
  async close(): Promise<void> {
    for (const call of [...this.#calls]) call.cancel('the burrow tunnel is shutting down')
    await Promise.all([...this.#streams].map((stream) => stream.close()))
  }

  #resume(
    req: LocalRequest,
    res: LocalResponse,
    message: JsonRpcRequest,
    state: unknown,
  ): Promise<void> | void {
    // Only the agent the call was made by (the edge's Burrow-Agent) resumes it: another approved
    // agent holding its requestState is told it is not one this server knows, as for a session.
    const agent = req.headers['burrow-agent']
    const call = this.#bridge.take(state, (parked) => parked.agent === agent)
    if (!call) {
      const text = InputBridge.issued(state)
        ? 'Invalid params: this requestState has expired or was already used; send the request again without it'
        : 'Invalid params: requestState is not one this server issued'
      return replyError(res, 400, message.id, JSONRPC_CODE.invalidParams, text)
    }
    if (!call.matches(message)) {
      call.cancel('the retry did not match the request')
      const text = `Invalid params: this requestState belongs to a different ${call.method} request`
      return replyError(res, 400, message.id, JSONRPC_CODE.invalidParams, text)
    }
    return call.resume(message, res, req.signal)
  }
}

interface Problem {
  readonly code: number
  readonly text: string
  readonly data?: unknown
}

/**
 * What is wrong with a 2026-07-28 request's headers or metadata, or null. An `MCP-Protocol-Version`
 * header naming a 2025 revision is tolerated next to a 2026-07-28 body: some connectors send
 * exactly that, and the body decides the era (docs/decisions.md).
 */
function requestProblem(
  headers: Readonly<Record<string, string>>,
  message: JsonRpcRequest,
  meta: RequestMeta,
): Problem | null {
  const mismatch = mirroredHeaderProblem(headers, message.method, message.params)
  if (mismatch) return { code: JSONRPC_CODE.headerMismatch, text: `Header mismatch: ${mismatch}` }
  const version = meta.protocolVersion
  if (version === null) {
    const text = 'Invalid params: _meta["io.modelcontextprotocol/protocolVersion"] is missing'
    return { code: JSONRPC_CODE.invalidParams, text }
  }
  if (!MODERN_PROTOCOL_VERSIONS.includes(version)) {
    const supported = [...MODERN_PROTOCOL_VERSIONS, ...LEGACY_PROTOCOL_VERSIONS]
    return {
      code: JSONRPC_CODE.unsupportedProtocolVersion,
      text: `Unsupported protocol version ${version}`,
      data: { supported, requested: version },
    }
  }
  const header = headers['mcp-protocol-version']?.trim()
  if (header !== undefined && header !== version && !LEGACY_PROTOCOL_VERSIONS.includes(header)) {
    const text = `Header mismatch: MCP-Protocol-Version ${header} but the body says ${version}`
    return { code: JSONRPC_CODE.headerMismatch, text }
  }
  if (meta.clientCapabilities === null) {
    const text = 'Invalid params: _meta["io.modelcontextprotocol/clientCapabilities"] is missing'
    return { code: JSONRPC_CODE.invalidParams, text }
  }
  return null
}
