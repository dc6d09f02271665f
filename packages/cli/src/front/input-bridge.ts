/**
 * The bridge between a 2025 server's requests to its client (elicitation, sampling, roots) and a
 * 2026-07-28 agent, which cannot be sent requests: it is answered instead with an `input_required`
 * result that embeds them, and its retry carries the answers back (multi round-trip requests). The
 * server's call stays open meanwhile, parked here under the round's `requestState`: an opaque
 * random token, new each round, that the agent echoes and that names nothing but the parked call.
 * On `oauth` and `token` tunnels only the agent that made the call may use it (modern-front.ts).
 */
import { randomBytes } from 'node:crypto'
import { ownEntry } from '@burrow/protocol'

/**
 * The client capability each server→client request needs: only these can be bridged to a
 * 2026-07-28 agent, and an agent that did not declare one is never sent its request.
 */
const BRIDGED_CAPABILITY: Readonly<Record<string, string>> = Object.freeze({
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
})

/** The capability server→client request `method` needs, or undefined when it cannot be bridged. */
export function bridgedCapability(method: string): string | undefined {
  return ownEntry(BRIDGED_CAPABILITY, method)
}

/** Requests whose agents may be answered with `input_required` (2026-07-28 MRTR). */
export const INPUT_REQUIRED_METHODS: ReadonlySet<string> = new Set([
  'tools/call',
  'prompts/get',
  'resources/read',
])

/** Prefix of every `requestState` the front issues. */
const STATE_PREFIX = 'burrow-mrtr.'

/**
 * Calls one agent (a grant or agent token the edge names) may have waiting at once: the edge
 * holds a session place for a 2026-07-28 request only while it is in flight, so without this one
 * agent's calls left waiting took every place, and every other agent's call that asked for input
 * was ended.
 */
export const PARKED_PER_AGENT = 1_000

/**
 * Calls waiting for an agent's retry, by `requestState`, at most `max` at once and `perAgent` of
 * one named agent. When all places are taken, a named agent holding fewer than another pushes
 * out that one's oldest call (`evict` ends it): a few agents at their share cannot keep every
 * other agent's calls from waiting.
 */
export class InputBridge<Call> {
  readonly #parked = new Map<string, Call>()
  readonly #states = new Map<Call, { readonly state: string; readonly agent?: string }>()
  /** Calls parked by each named agent, oldest first. */
  readonly #byAgent = new Map<string, Set<Call>>()
  readonly #max: number
  readonly #perAgent: number
  readonly #evict: (call: Call) => void

  /**
   * `max`: calls parked at once. Each holds a session of the local server and its open request
   * for up to the wait, so they are bounded like the sessions they are. `perAgent`: calls one
   * named agent may have parked (public callers cannot be told apart). `evict`: ends a call
   * pushed out for another agent's (already forgotten here).
   */
  constructor(max = Infinity, perAgent = Infinity, evict: (call: Call) => void = () => {}) {
    this.#max = max
    this.#perAgent = perAgent
    this.#evict = evict
  }

  /**
   * Park `call`, made by `agent` (undefined on public tunnels), under a fresh `requestState`,
   * returned; null when `perAgent` of that agent's wait already, or `max` calls of which none
   * can be pushed out.
   */
  park(call: Call, agent?: string): string | null {
    this.forget(call)
    const own = agent === undefined ? undefined : this.#byAgent.get(agent)
    if ((own?.size ?? 0) >= this.#perAgent) return null
    if (this.#parked.size >= this.#max && !this.#pushOut(agent, own?.size ?? 0)) return null
    const state = STATE_PREFIX + randomBytes(18).toString('base64url')
    this.#parked.set(state, call)
    this.#states.set(call, agent === undefined ? { state } : { state, agent })
    if (agent !== undefined) {
      const calls = own ?? new Set<Call>()
      this.#byAgent.set(agent, calls.add(call))
    }
    return state
  }

  /**
   * The call parked under `state`, removed; undefined for any other value, and for a call
   * `accepts` refuses (it stays parked: another agent holding the state neither resumes nor ends
   * it).
   */
  take(state: unknown, accepts: (call: Call) => boolean = () => true): Call | undefined {
    if (typeof state !== 'string') return undefined
    const call = this.#parked.get(state)
    if (call === undefined || !accepts(call)) return undefined
    this.forget(call)
    return call
  }

  /** Forget `call` if it is parked (it ended). */
  forget(call: Call): void {
    const parked = this.#states.get(call)
    if (parked === undefined) return
    this.#states.delete(call)
    this.#parked.delete(parked.state)
    const agent = parked.agent
    if (agent === undefined) return
    const calls = this.#byAgent.get(agent)
    calls?.delete(call)
    if (calls?.size === 0) this.#byAgent.delete(agent)
  }

  /**
   * Make a place for named `agent`, which holds `held` calls: end the oldest call of the agent
   * holding the most, if that one holds at least two more (so that the two would not trade
   * places back and forth). False when no place was made.
   */
  #pushOut(agent: string | undefined, held: number): boolean {
    if (agent === undefined) return false
    let largest: Set<Call> | undefined
    for (const calls of this.#byAgent.values())
      if (calls.size > (largest?.size ?? 0)) largest = calls
    if (largest === undefined || largest.size < held + 2) return false
    const victim = largest.values().next().value as Call
    this.forget(victim)
    this.#evict(victim)
    return true
  }

  /** True when `state` is one the front issues (parked or not). */
  static issued(state: unknown): boolean {
    return typeof state === 'string' && state.startsWith(STATE_PREFIX)
  }

  /** Every parked call (for shutdown). */
  calls(): Call[] {
    return [...new Set(this.#parked.values())]
  }

  /** Number of parked calls. */
  get size(): number {
    return this.#parked.size
  }
}
