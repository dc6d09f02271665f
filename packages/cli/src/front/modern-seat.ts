/**
 * A seat for one 2026-07-28 exchange at the backend. The backends speak the 2025 wire, with a
 * session per agent; a sessionless agent gets a short-lived backend session of its own for each
 * request (or `subscriptions/listen` stream), opened with an `initialize` the front writes from
 * the request's `_meta` (capabilities, client info). The backends answer that from what they
 * already know (the stdio child's cached handshake, the aggregator's merged one), so a seat costs
 * no round trip to a server once the first agent is served. Whoever holds the seat receives what
 * the backend sends through `onMessage` and `onEnd`.
 */
import { randomUUID } from 'node:crypto'
import {
  errorResponse,
  isRequest,
  JSONRPC_CODE,
  LEGACY_PROTOCOL_VERSIONS,
  type JsonRpcError,
  type JsonRpcId,
  type JsonRpcMessage,
  type RequestMeta,
} from '@burrow/protocol'
import type { BackendSession, McpBackend, SessionSink } from './mcp-backend.js'
import { RpcError } from './rpc-error.js'

/** clientInfo for the backend when the agent sent none (it is a SHOULD in 2026-07-28). */
const ANONYMOUS_CLIENT = Object.freeze({ name: 'burrow-modern-agent', version: '0' })

/** The InitializeResult the backend answered, as a plain record. */
export type InitializeAnswer = Readonly<Record<string, unknown>>

const INITIALIZE_ID = 'burrow-seat-initialize'

/** Client capabilities whose requests `input-bridge.ts` can carry to a 2026-07-28 agent. */
const BRIDGEABLE_CAPABILITIES = Object.freeze({ elicitation: {}, sampling: {}, roots: {} })

/** The answer to a server→client request that arrives while no call holds the seat. */
function refusal(id: JsonRpcId): JsonRpcError {
  const reason = 'a 2026-07-28 client can only be asked during a call (input_required)'
  return errorResponse(id, JSONRPC_CODE.methodNotFound, reason)
}

/** One backend session serving one 2026-07-28 exchange. */
export class ModernSeat implements SessionSink {
  /** The backend's session; messages the holder sends go here. */
  readonly session: BackendSession
  /** The capabilities the agent declared (what the seat told the backend). */
  readonly capabilities: Readonly<Record<string, unknown>>
  onMessage: (message: JsonRpcMessage, relatedTo?: JsonRpcId) => void = () => {}
  onEnd: (reason: string) => void = () => {}
  /** The agent the seat serves, as far as it is known (see `SessionSink.askGroup`). */
  readonly askGroup: string
  #closed = false

  private constructor(backend: McpBackend, meta: RequestMeta, agent: string | undefined) {
    this.capabilities = meta.clientCapabilities ?? {}
    this.askGroup = `sessionless agent ${agent ?? '(unknown)'}`
    this.session = backend.openSession(`modern-${randomUUID()}`, this)
  }

  /**
   * Open a seat for a request whose metadata is `meta`, from `agent` (the edge's `Burrow-Agent`,
   * when it says): resolves once the backend answered the written `initialize`, with its result;
   * rejects with a `RpcError` otherwise.
   */
  static open(
    backend: McpBackend,
    meta: RequestMeta,
    signal: AbortSignal,
    agent?: string,
  ): Promise<{ seat: ModernSeat; init: InitializeAnswer }> {
    const seat = new ModernSeat(backend, meta, agent)
    return new Promise((resolve, reject) => {
      // The agent may hang up before the backend answers (a stdio child still starting): the
      // seat is given back then, not left open for ever.
      const onAbort = (): void => {
        fail(new RpcError(JSONRPC_CODE.serverError, 'the client closed the request'))
      }
      const fail = (error: RpcError): void => {
        signal.removeEventListener('abort', onAbort)
        seat.close()
        reject(error)
      }
      signal.addEventListener('abort', onAbort, { once: true })
      seat.onMessage = (message) => {
        // A server→client request now (roots/list after initialized) has no call to ride on.
        if (isRequest(message)) return seat.session.respond(refusal(message.id))
        if (!('id' in message) || 'method' in message || message.id !== INITIALIZE_ID) return
        if ('error' in message) {
          return fail(new RpcError(message.error.code, message.error.message, message.error.data))
        }
        seat.onMessage = (later) => {
          if (isRequest(later)) seat.session.respond(refusal(later.id))
        }
        seat.onEnd = () => {}
        signal.removeEventListener('abort', onAbort)
        seat.session.notify({ jsonrpc: '2.0', method: 'notifications/initialized' })
        resolve({ seat, init: message.result })
      }
      seat.onEnd = (reason) => fail(new RpcError(JSONRPC_CODE.serverError, reason))
      const params = {
        protocolVersion: LEGACY_PROTOCOL_VERSIONS[0],
        // The backend may be meeting its first client here (a stdio child initializes once), and a
        // 2025 server only asks what the handshake allowed: offer what the bridge can carry. Each
        // call still checks the capabilities its own agent declared (modern-call.ts).
        capabilities: { ...BRIDGEABLE_CAPABILITIES, ...seat.capabilities },
        clientInfo: meta.clientInfo ?? ANONYMOUS_CLIENT,
      }
      if (signal.aborted) return onAbort()
      seat.session.request(
        { jsonrpc: '2.0', id: INITIALIZE_ID, method: 'initialize', params },
        signal,
      )
    })
  }

  /** True once closed. */
  get closed(): boolean {
    return this.#closed
  }

  deliver(message: JsonRpcMessage, relatedTo?: JsonRpcId): void {
    if (!this.#closed) this.onMessage(message, relatedTo)
  }

  end(reason: string): void {
    if (this.#closed) return
    this.#closed = true
    this.onEnd(reason)
  }

  /** Give the seat back: the backend forgets the session (cancelling what is still in flight). */
  close(): void {
    if (this.#closed) return
    this.#closed = true
    this.session.close()
  }
}
