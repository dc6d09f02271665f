/**
 * The requests one upstream link has in flight: each goes out under a fresh id of the link's own
 * (the agent's id and progress token stay on the agent side), waits in the bounded
 * `PendingTable`, and settles exactly once: answered, cancelled (the agent gave up or hung up, a
 * timeout), evicted (the table was full) or failed with the link.
 */
import {
  JSONRPC_CODE,
  type JsonRpcId,
  type JsonRpcMessage,
  type JsonRpcResponse,
} from '@burrow/protocol'
import type { AggregatorMetrics } from './aggregator-metrics.js'
import {
  DEFAULT_PENDING_LIMIT,
  PendingTable,
  ownerGroup,
  type CallOwner,
  type PendingCall,
} from './pending-table.js'
import { RecentCancels } from '../front/recent-cancels.js'
import { RpcError } from '../front/rpc-error.js'

/** Options of one call. */
export interface CallOptions {
  /** The agent request the call serves. */
  readonly owner?: CallOwner
  /** Aborting cancels the call upstream (`notifications/cancelled`). */
  readonly signal?: AbortSignal
  /** Asks the upstream for progress and receives each notification's params. */
  readonly onProgress?: (params: Readonly<Record<string, unknown>>) => void
  /** Fail (and cancel upstream) after this long. */
  readonly timeoutMs?: number
}

/** What `UpstreamCalls` needs from its link. */
export interface UpstreamCallsOptions {
  /** Upstream name, for messages and metrics. */
  readonly name: string
  readonly metrics: AggregatorMetrics
  /** Deliver a message to the upstream; rejects when it could not. */
  readonly send: (message: JsonRpcMessage) => Promise<void>
  /** Send a message whose delivery nobody waits for. */
  readonly post: (message: JsonRpcMessage) => void
  readonly limit?: number
}

/** Requests in flight at one upstream. */
export class UpstreamCalls {
  readonly #opts: UpstreamCallsOptions
  readonly #table: PendingTable
  /** Agent sessions whose calls here were just cancelled or evicted. */
  readonly #cancels = new RecentCancels<string>()
  #nextId = 0

  constructor(options: UpstreamCallsOptions) {
    this.#opts = options
    this.#table = new PendingTable(options.limit ?? DEFAULT_PENDING_LIMIT)
  }

  /** Send a request; resolves with its result, rejects with an `RpcError`. */
  call(
    method: string,
    params: Readonly<Record<string, unknown>> | undefined,
    options: CallOptions = {},
  ): Promise<Readonly<Record<string, unknown>>> {
    return new Promise((resolve, reject) => {
      const { signal, timeoutMs, onProgress } = options
      if (signal?.aborted) return reject(cancelled(signal.reason))
      const upstreamId = ++this.#nextId
      const cleanups: (() => void)[] = []
      const call: PendingCall = {
        upstreamId,
        method,
        owner: options.owner,
        resolve,
        reject,
        onProgress,
        detach: () => cleanups.forEach((cleanup) => cleanup()),
      }
      if (signal) {
        const onAbort = (): void => this.#cancel(call, cancelled(signal.reason))
        signal.addEventListener('abort', onAbort, { once: true })
        cleanups.push(() => signal.removeEventListener('abort', onAbort))
      }
      if (timeoutMs !== undefined) {
        const text = `upstream "${this.#opts.name}" did not answer ${method} within ${timeoutMs / 1000} s`
        const timer = setTimeout(
          () => this.#cancel(call, new RpcError(JSONRPC_CODE.requestTimeout, text)),
          timeoutMs,
        )
        cleanups.push(() => clearTimeout(timer))
      }
      const evicted = this.#table.add(call)
      if (evicted) this.#evict(evicted)
      const sent = onProgress ? withProgressToken(params, upstreamId) : params
      this.#opts.metrics.request(this.#opts.name, method)
      const message = { jsonrpc: '2.0' as const, id: upstreamId, method }
      this.#opts.send(sent ? { ...message, params: sent } : message).catch((err: unknown) => {
        const reason = err instanceof Error ? err.message : String(err)
        this.#fail(upstreamId, `upstream "${this.#opts.name}": ${reason}`)
      })
    })
  }

  /** Settle the call a response answers, and return it; undefined when no call has its id. */
  answer(message: JsonRpcResponse): PendingCall | undefined {
    const call = this.#table.take(message.id)
    if (!call) return undefined
    call.detach()
    if ('result' in message) call.resolve(message.result)
    else call.reject(new RpcError(message.error.code, message.error.message, message.error.data))
    return call
  }

  /** Hand a progress notification's params to the call whose token it names. */
  progress(params: Readonly<Record<string, unknown>>): void {
    this.#table.get(params.progressToken)?.onProgress?.(params)
  }

  /**
   * The agent request a server→client request concerns: the one whose call's response stream
   * carried it (HTTP tells; `'unplaced'` when that call has ended or serves no agent); else, as
   * stdio says nothing, the latest call in flight when every call in flight, and every call just
   * cancelled, serves one session; `'unplaced'` otherwise.
   */
  askOwner(stream: JsonRpcId | undefined): CallOwner | 'unplaced' | undefined {
    if (stream !== undefined) return this.#table.get(stream)?.owner ?? 'unplaced'
    const owner = this.#table.soleOwner()
    if (owner === 'unplaced') return owner
    const group = owner && ownerGroup(owner)
    return this.#cancels.keys().some((id) => id !== group) ? 'unplaced' : owner
  }

  /** Fail every call with `error` (the upstream went away or the aggregator closes). */
  failAll(error: RpcError): void {
    for (const call of this.#table.drain()) {
      call.detach()
      call.reject(error)
    }
  }

  #fail(upstreamId: number, message: string): void {
    const call = this.#table.take(upstreamId)
    if (!call) return
    call.detach()
    call.reject(new RpcError(JSONRPC_CODE.serverError, message))
  }

  /** Cancel a call still in flight: tell the upstream, fail it with `error`. */
  #cancel(call: PendingCall, error: RpcError): void {
    if (this.#table.take(call.upstreamId) !== call) return
    if (call.owner) this.#cancels.add(ownerGroup(call.owner))
    // The MCP lifecycle forbids cancelling initialize; the link starts over instead.
    if (call.method !== 'initialize') this.#notifyCancelled(call.upstreamId, error.message)
    call.detach()
    call.reject(error)
  }

  #evict(call: PendingCall): void {
    this.#opts.metrics.idEviction()
    if (call.owner) this.#cancels.add(ownerGroup(call.owner))
    this.#notifyCancelled(call.upstreamId, 'dropped by the aggregator: too many requests in flight')
    const limit = this.#opts.limit ?? DEFAULT_PENDING_LIMIT
    const message =
      `request dropped: upstream "${this.#opts.name}" had more than ${limit} requests in ` +
      'flight, and this one was the oldest of the client with the most of them'
    call.detach()
    call.reject(new RpcError(JSONRPC_CODE.serverError, message))
  }

  #notifyCancelled(upstreamId: number, reason: string): void {
    const params = { requestId: upstreamId, reason }
    this.#opts.post({ jsonrpc: '2.0', method: 'notifications/cancelled', params })
  }
}

function cancelled(reason: unknown): RpcError {
  const why =
    reason instanceof Error ? reason.message : typeof reason === 'string' ? reason : 'aborted'
  return new RpcError(JSONRPC_CODE.serverError, `request cancelled: ${why}`)
}

/** `params` with `_meta.progressToken` set to `token`. */
function withProgressToken(
  params: Readonly<Record<string, unknown>> | undefined,
  token: number,
): Record<string, unknown> {
  const meta = params?._meta as Record<string, unknown> | undefined
  return { ...params, _meta: { ...meta, progressToken: token } }
}
