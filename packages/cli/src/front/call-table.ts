/**
 * The stdio backend's bookkeeping of what is in flight between agents and the child: agent
 * requests the child is working on (by the child-side id the backend gave them) and server→client
 * requests an agent holds (by the child's own id). Both directions are needed to translate
 * answers, progress and cancellations.
 */
import { idKey, type JsonRpcId } from '@burrow/protocol'
import { askGroup } from './mcp-backend.js'
import { RecentCancels } from './recent-cancels.js'
import type { StdioSession } from './stdio-session.js'

/** An agent request that is with the child. Its id there is `childId`, also its progress token. */
export interface ChildCall {
  readonly session: StdioSession
  readonly agentId: JsonRpcId
  readonly childId: number
  readonly method: string
  /** When it was sent, on the backend's clock: the latest call is the likeliest cause of a request. */
  readonly order: number
  /** The agent's own progress token, if it asked for progress. */
  readonly agentToken: JsonRpcId | undefined
  /** The URI a `resources/subscribe` newly subscribes the session to (undone if it fails). */
  readonly subscribes?: string
  /** Stop watching the agent's hang-up signal. */
  detach: () => void
}

/** A server→client request handed to an agent. */
export interface Ask {
  readonly session: StdioSession
  /** The id the agent sees. */
  readonly agentId: number
  /** The agent request it was raised for, if any. */
  readonly relatedTo: JsonRpcId | undefined
}

/** Calls and asks of one child generation. */
export class CallTable {
  readonly #calls = new Map<number, ChildCall>()
  readonly #asks = new Map<string, Ask>()
  readonly #cancels: RecentCancels<StdioSession | string>
  #lastChildId = 0
  /** burrow's ping sent right after `notifications/initialized`, until the child answers it. */
  #initializedFence: number | undefined

  constructor(cancels = new RecentCancels<StdioSession | string>()) {
    this.#cancels = cancels
  }

  /** A child-side id never used before (ids keep growing across restarts). */
  nextChildId(): number {
    this.#lastChildId += 1
    return this.#lastChildId
  }

  /** Record a call and index it in its session. */
  add(call: ChildCall): void {
    this.#calls.set(call.childId, call)
    call.session.inFlight.set(idKey(call.agentId), call.childId)
  }

  /** The call with this child-side id. */
  call(childId: unknown): ChildCall | undefined {
    return typeof childId === 'number' ? this.#calls.get(childId) : undefined
  }

  /** Forget a call (answered, cancelled or failed). False when it was already gone. */
  settle(call: ChildCall): boolean {
    if (this.#calls.get(call.childId) !== call) return false
    this.#calls.delete(call.childId)
    call.session.inFlight.delete(idKey(call.agentId))
    call.detach()
    return true
  }

  /** Forget a call the agent gave up on, remembering for a while whose it was. */
  cancel(call: ChildCall): boolean {
    if (!this.settle(call)) return false
    this.#cancels.add(askGroup(call.session))
    return true
  }

  /**
   * The call a server→client request most likely concerns (stdio says nothing of its cause): the
   * most recently sent call in flight, initialize aside, when every such call is one session's
   * (or one ask group's: see `SessionSink.askGroup`); `'unplaced'` when calls of more than one
   * group are in flight, or another group's call was just cancelled (the child may have asked for it
   * before it knew), since guessing would hand one agent's request (and what it carries of that
   * agent's call) to another agent.
   */
  askCause(): ChildCall | 'unplaced' | undefined {
    let latest: ChildCall | undefined
    for (const call of this.#calls.values()) {
      if (call.method === 'initialize') continue
      if (latest && askGroup(call.session) !== askGroup(latest.session)) return 'unplaced'
      if (!latest || call.order > latest.order) latest = call
    }
    const group = latest && askGroup(latest.session)
    if (this.#cancels.keys().some((cancelled) => cancelled !== group)) return 'unplaced'
    return latest
  }

  /**
   * Where a server→client request goes: stdio carries no hint of which call caused it, so to the
   * session whose calls are in flight (on the stream of its latest), `'unplaced'` when that cannot
   * be told (see `askCause`), else the most recently active of `sessions` (a request outside any
   * call, such as roots/list after initialize, concerns no agent's call).
   */
  askTarget(
    sessions: Iterable<StdioSession>,
  ): { session: StdioSession; relatedTo?: JsonRpcId } | 'unplaced' | undefined {
    const latest = this.askCause()
    if (latest === 'unplaced') return latest
    if (latest) return { session: latest.session, relatedTo: latest.agentId }
    let active: StdioSession | undefined
    for (const session of sessions) {
      if (!active || session.lastActive > active.lastActive) active = session
    }
    return active && { session: active }
  }

  /**
   * `notifications/initialized` went to the child, followed by burrow's own ping `childId`: until
   * the child answers that, what it asks may be its answer to `initialized` (the reference
   * filesystem server asks for roots then), whatever call of an agent happens to be in flight.
   */
  fenceInitialized(childId: number): void {
    this.#initializedFence = childId
  }

  /** True while the child has not answered the ping sent after `notifications/initialized`. */
  get answeringInitialized(): boolean {
    return this.#initializedFence !== undefined
  }

  /** The child answered `childId`: true when it is the ping of `fenceInitialized` (done with). */
  fenceAnswered(childId: unknown): boolean {
    if (childId === undefined || childId !== this.#initializedFence) return false
    this.#initializedFence = undefined
    return true
  }

  /** Record that the agent of `ask.session` holds the child's request `childRequestId`. */
  addAsk(childRequestId: JsonRpcId, ask: Ask): void {
    this.#asks.set(idKey(childRequestId), ask)
    ask.session.asks.set(idKey(ask.agentId), childRequestId)
  }

  /** Whether a request of the child with this id is still unanswered. */
  hasAsk(childRequestId: JsonRpcId): boolean {
    return this.#asks.has(idKey(childRequestId))
  }

  /** Remove and return the ask for the child's request id, if any. */
  takeAsk(childRequestId: unknown): Ask | undefined {
    if (typeof childRequestId !== 'string' && typeof childRequestId !== 'number') return undefined
    const ask = this.#asks.get(idKey(childRequestId))
    if (!ask) return undefined
    this.#asks.delete(idKey(childRequestId))
    ask.session.asks.delete(idKey(ask.agentId))
    return ask
  }

  /** Forget everything (the child is gone). */
  clear(): void {
    this.#initializedFence = undefined
    this.#cancels.clear()
    for (const call of this.#calls.values()) call.detach()
    this.#calls.clear()
    this.#asks.clear()
  }
}
