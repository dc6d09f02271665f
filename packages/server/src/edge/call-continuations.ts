/**
 * One logical `tools/call` across the rounds of MCP 2026-07-28's multi-round-trip requests: a
 * server that needs input answers `{resultType: "input_required", inputRequests, requestState}`,
 * and the agent retries with a new id, its `inputResponses` and that `requestState`. The edge
 * remembers each `requestState` it saw in an answer (as a hash, per tunnel and agent) with the
 * call it belongs to; a retry presenting one is the same call: linked in history, not counted
 * again. Only the agent whose call it answered continues it: another agent of the tunnel
 * presenting the state makes a new call.
 *
 * Each remembered state continues one retry only (taken when used), of the same tool, for 15
 * minutes at most, so a state cannot be replayed for free calls. A call's first
 * `FREE_ROUNDS` retries are free; each one past them counts as a call, so a server and an agent
 * in league cannot run endless work as one call. A `requestState` the edge
 * never handed out, or one handed out for another tool or another method (a `prompts/get` can
 * ask for input too), is a new call, counted. Bounded: the oldest states are forgotten past
 * 50,000, and a tunnel holding 1,000 forgets its own oldest (one tenant's calls cannot push out
 * every other's), taken from the agent of the tunnel that holds the most (one agent's calls
 * cannot push out the states of the tunnel's other agents). A retry that admission then refuses
 * gives its state back. Kept per node: a retry that lands on another node is counted as a new
 * call (never fewer calls than happened).
 */
import { createHash } from 'node:crypto'
import type { ClassifiedMessage, JsonRpcBody } from '@burrow/protocol'

/** How long a `requestState` continues its call. */
export const CONTINUATION_TTL_MS = 15 * 60_000
/** Most states remembered at once. */
export const MAX_CONTINUATIONS = 50_000
/**
 * Most states one tunnel holds at once: its own oldest are forgotten past it, so that one
 * tunnel's calls cannot push every other tunnel's states out.
 */
export const MAX_CONTINUATIONS_PER_TUNNEL = 1_000
/** Retries of one call that are not counted; each later one counts as a call. */
export const FREE_ROUNDS = 10
/** Longest `requestState` looked at (longer ones are new calls). */
const MAX_STATE_CHARS = 64 * 1024

/** The states of answers that asked for input, and the calls they continue. */
export class CallContinuations {
  /** By key, oldest first. */
  readonly #states = new Map<string, Remembered>()
  /** Each tunnel's keys, by agent, oldest first. */
  readonly #byTunnel = new Map<string, TunnelStates>()
  readonly #now: () => number

  constructor(now: () => number = Date.now) {
    this.#now = now
  }

  /**
   * An answer of call `callId` of tool `tool`, made by `caller`, asked for input, with
   * `requestState`, in the call's round `round` (0 for the call itself, 1 for its first retry, …).
   */
  remember(caller: Caller, tool: string, requestState: string, callId: string, round = 0): void {
    const key = keyOf(caller, tool, requestState)
    if (key === null) return
    this.#put(key, caller, { callId, round: round + 1 }, this.#now())
  }

  /**
   * The call a retry of `tool` by `caller` carrying `requestState` continues, and the retry's
   * round (the state is used up), or null for a new call.
   */
  take(caller: Caller, tool: string, requestState: string): Continued | null {
    const key = keyOf(caller, tool, requestState)
    if (key === null) return null
    const found = this.#states.get(key)
    if (found === undefined) return null
    this.#forget(key)
    if (this.#now() - found.at > CONTINUATION_TTL_MS) return null
    return { ...found.call, at: found.at }
  }

  /**
   * Give back the state a retry took (`continued`, from `take`) when the retry was refused
   * before it reached the server: the agent's next retry continues the call still.
   */
  giveBack(caller: Caller, tool: string, requestState: string, continued: Continued): void {
    const key = keyOf(caller, tool, requestState)
    if (key === null || this.#states.has(key)) return
    this.#put(key, caller, { callId: continued.callId, round: continued.round }, continued.at)
  }

  /** States remembered (tests). */
  get size(): number {
    return this.#states.size
  }

  #put(key: string, caller: Caller, call: Round, at: number): void {
    this.#forget(key)
    const agent = caller.agentId ?? ''
    const tunnel = this.#byTunnel.get(caller.tunnelId)
    // A tunnel past its share forgets its own oldest state, never another tunnel's: the oldest
    // of its agent holding the most (the caller's own when it holds as many).
    if (tunnel !== undefined && tunnel.size >= MAX_CONTINUATIONS_PER_TUNNEL) {
      this.#forget(largestAgentOf(tunnel, agent).values().next().value!)
    } else if (this.#states.size >= MAX_CONTINUATIONS) {
      const oldest = this.#states.keys().next()
      if (!oldest.done) this.#forget(oldest.value)
    }
    this.#states.set(key, { tunnelId: caller.tunnelId, agent, call, at })
    const states = this.#byTunnel.get(caller.tunnelId) ?? {
      size: 0,
      byAgent: new Map<string, Set<string>>(),
    }
    this.#byTunnel.set(caller.tunnelId, states)
    const keys = states.byAgent.get(agent) ?? new Set<string>()
    states.byAgent.set(agent, keys.add(key))
    states.size++
  }

  #forget(key: string): void {
    const found = this.#states.get(key)
    if (found === undefined) return
    this.#states.delete(key)
    const tunnel = this.#byTunnel.get(found.tunnelId)
    const keys = tunnel?.byAgent.get(found.agent)
    if (tunnel === undefined || keys?.delete(key) !== true) return
    tunnel.size--
    if (keys.size === 0) tunnel.byAgent.delete(found.agent)
    if (tunnel.size === 0) this.#byTunnel.delete(found.tunnelId)
  }
}

/** One tunnel's remembered keys, by agent ('' for public callers), oldest first. */
interface TunnelStates {
  size: number
  readonly byAgent: Map<string, Set<string>>
}

/** The keys of the agent of `tunnel` holding the most; `own`'s when it holds as many. */
function largestAgentOf(tunnel: TunnelStates, own: string): Set<string> {
  let largest = tunnel.byAgent.get(own) ?? new Set<string>()
  for (const keys of tunnel.byAgent.values()) if (keys.size > largest.size) largest = keys
  return largest
}

interface Remembered {
  readonly tunnelId: string
  readonly agent: string
  readonly call: Round
  readonly at: number
}

/** Who makes a call: its tunnel, and the agent the access gate admitted (null for public). */
export interface Caller {
  readonly tunnelId: string
  readonly agentId: string | null
}

/** A call, and which of its retries a state continues (1 for the first). */
export interface Round {
  readonly callId: string
  readonly round: number
}

/** The call a retry continues, which of its retries it is, and when its state was handed out. */
export interface Continued extends Round {
  readonly at: number
}

/** Whether retry `c` is counted as a call (past the call's free rounds). */
export function countsAsCall(c: Round): boolean {
  return c.round > FREE_ROUNDS
}

/** A retry: the tool a single `tools/call` request of a body names, and its `requestState`. */
export interface Retry {
  readonly tool: string
  readonly state: string
}

/** The tool and `requestState` a single `tools/call` request of `body` carries, or null. */
export function retryStateOf(body: JsonRpcBody | null): Retry | null {
  if (body === null || body.batch || body.messages.length !== 1) return null
  const m = body.messages[0]!
  if (m.kind !== 'request' || m.method !== 'tools/call' || m.target?.kind !== 'tool') return null
  const params = m.value.params as { requestState?: unknown } | undefined
  return typeof params?.requestState === 'string'
    ? { tool: m.target.name, state: params.requestState }
    : null
}

/** The `requestState` of an answer that asks for input, or null. */
export function inputRequiredStateOf(m: ClassifiedMessage): string | null {
  if (m.kind !== 'response' || m.error) return null
  const result = m.value.result as { resultType?: unknown; requestState?: unknown } | undefined
  return result?.resultType === 'input_required' && typeof result.requestState === 'string'
    ? result.requestState
    : null
}

function keyOf(caller: Caller, tool: string, state: string): string | null {
  if (state === '' || state.length > MAX_STATE_CHARS) return null
  const hash = createHash('sha256').update(tool).update('\u0000').update(state)
  return `${caller.tunnelId}|${caller.agentId ?? ''}|${hash.digest('base64url')}`
}
