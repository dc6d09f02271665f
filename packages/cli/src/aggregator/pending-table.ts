/**
 * The id rewriter's memory for one upstream: every request the aggregator sent there, by the id
 * it carries upstream. Ids there are the aggregator's own (a counter per upstream), so agents that
 * pick the same ids never collide, and that id doubles as the progress token. The table is
 * bounded: when it is full, a request is evicted (its agent gets an error) rather than letting a
 * stuck upstream grow memory without limit: the oldest of the agent (ask group) with the most in
 * flight, so that one agent flooding an upstream drops its own calls and not another's.
 */
import type { JsonRpcId } from '@burrow/protocol'
import type { RpcError } from '../front/rpc-error.js'

/** Which agent request a call serves, for routing what the upstream sends while serving it. */
export interface CallOwner {
  readonly sessionId: string
  readonly agentId: JsonRpcId
  /**
   * Whose question a server's request may be placed with: the session's id, or the ask group of
   * its sink (see `SessionSink.askGroup` in mcp-backend.ts). Defaults to `sessionId`.
   */
  readonly group?: string
}

/** The ask group of `owner`. */
export function ownerGroup(owner: CallOwner): string {
  return owner.group ?? owner.sessionId
}

/** One request in flight at an upstream. */
export interface PendingCall {
  /** The id it carries upstream (also its progress token when progress was asked for). */
  readonly upstreamId: number
  readonly method: string
  /** The agent request it serves; none for the aggregator's own requests. */
  readonly owner: CallOwner | undefined
  readonly resolve: (result: Readonly<Record<string, unknown>>) => void
  readonly reject: (error: RpcError) => void
  /** Called with each `notifications/progress` params for this call. */
  readonly onProgress: ((params: Readonly<Record<string, unknown>>) => void) | undefined
  /** Stop watching signals and timers; called once the call is settled. */
  readonly detach: () => void
}

/** Default bound of the table (per upstream). */
export const DEFAULT_PENDING_LIMIT = 10_000

/** The group a call counts under when the table is full: its ask group, `''` for burrow's own. */
function groupOf(call: PendingCall): string {
  return call.owner ? ownerGroup(call.owner) : ''
}

/** The upstream id of the oldest of `calls` (ids grow: the first key). */
function oldestId(calls: ReadonlyMap<number, PendingCall>): number {
  return calls.keys().next().value ?? 0
}

/** Requests in flight at one upstream, oldest first. */
export class PendingTable {
  readonly #limit: number
  readonly #calls = new Map<number, PendingCall>()
  /** The same calls by group (`groupOf`), oldest first in each. */
  readonly #byGroup = new Map<string, Map<number, PendingCall>>()

  constructor(limit: number = DEFAULT_PENDING_LIMIT) {
    if (!Number.isInteger(limit) || limit < 1) throw new Error('the pending table needs room')
    this.#limit = limit
  }

  /** Number of calls in flight. */
  get size(): number {
    return this.#calls.size
  }

  /**
   * Record a call. Returns the call evicted to make room, if the table was full: the oldest of
   * the group with the most calls in flight; of several such groups, the one that came last (so
   * that an agent opening many sessions of one call each pushes out its own, not an older one's).
   */
  add(call: PendingCall): PendingCall | undefined {
    let evicted: PendingCall | undefined
    if (this.#calls.size >= this.#limit) {
      let largest: Map<number, PendingCall> | undefined
      for (const calls of this.#byGroup.values()) {
        if (
          largest === undefined ||
          calls.size > largest.size ||
          (calls.size === largest.size && oldestId(calls) > oldestId(largest))
        )
          largest = calls
      }
      evicted = largest?.values().next().value
      if (evicted) this.#remove(evicted)
    }
    this.#calls.set(call.upstreamId, call)
    const group = groupOf(call)
    let calls = this.#byGroup.get(group)
    if (!calls) this.#byGroup.set(group, (calls = new Map<number, PendingCall>()))
    calls.set(call.upstreamId, call)
    return evicted
  }

  /** The call with this upstream id, left in place. */
  get(upstreamId: unknown): PendingCall | undefined {
    return typeof upstreamId === 'number' ? this.#calls.get(upstreamId) : undefined
  }

  /** Remove and return the call with this upstream id. */
  take(upstreamId: unknown): PendingCall | undefined {
    const call = this.get(upstreamId)
    if (call) this.#remove(call)
    return call
  }

  /**
   * The owner of the most recently sent call that serves an agent request, when every such call
   * serves one ask group (`ownerGroup`); `'unplaced'` when they serve more than one.
   */
  soleOwner(): CallOwner | 'unplaced' | undefined {
    let latest: CallOwner | undefined
    for (const call of this.#calls.values()) {
      if (!call.owner) continue
      if (latest && ownerGroup(call.owner) !== ownerGroup(latest)) return 'unplaced'
      latest = call.owner
    }
    return latest
  }

  /** Remove and return every call (the upstream went away). */
  drain(): PendingCall[] {
    const calls = [...this.#calls.values()]
    this.#calls.clear()
    this.#byGroup.clear()
    return calls
  }

  #remove(call: PendingCall): void {
    this.#calls.delete(call.upstreamId)
    const group = groupOf(call)
    const calls = this.#byGroup.get(group)
    calls?.delete(call.upstreamId)
    if (calls?.size === 0) this.#byGroup.delete(group)
  }
}
