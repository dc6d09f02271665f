/**
 * Which agents a local HTTP server gave each of its own `requestState`s to (MCP 2026-07-28's
 * multi-round requests), so that on `oauth` and `token` tunnels one approved agent cannot resume
 * another's call by presenting its state: the local server never learns who the agent is, and a
 * state it minted without binding it to a user (the v2 SDK binds nothing by default) resumes
 * whatever call it names for whoever presents it. A state is an agent's once the local server
 * handed it to that agent in an answer (`answer-states.ts` reads them); on such tunnels a request
 * presenting a state that was never given to its agent (another agent's, one this process never
 * saw, or one forgotten as the oldest) is refused before it reaches the server, as sessions are
 * (`session-owners.ts`). Several agents may hold one state: a server that mints the same value
 * for two calls gave it to both. States are kept as hashes, so a long one costs no more memory
 * than a short one (hashed over their UTF-16 code units: two states a server tells apart are
 * never one here). Public tunnels name no agent and bind nothing (docs/security.md).
 */
import { createHash } from 'node:crypto'

/** States remembered at once; past it, the agent holding the most forgets its oldest. */
export const REQUEST_STATES_KEPT = 20_000
/**
 * States remembered for one agent: its least recently used goes first when it is given more, so
 * that one agent's calls push out its own states, not other agents'.
 */
export const REQUEST_STATES_PER_AGENT = 1_000

/** The agents a local HTTP server gave its `requestState`s to, bounded, most recently used last. */
export class RequestStateOwners {
  /** Each agent's states (hashes), least recently used first. */
  readonly #byAgent = new Map<string, Set<string>>()
  #size = 0
  readonly #kept: number
  readonly #perAgent: number

  constructor(kept = REQUEST_STATES_KEPT, perAgent = REQUEST_STATES_PER_AGENT) {
    this.#kept = kept
    this.#perAgent = perAgent
  }

  /** The local server gave `state` to `agent` in an answer. */
  given(state: string, agent: string): void {
    const hash = hashOf(state)
    const own = this.#byAgent.get(agent) ?? new Set<string>()
    if (own.delete(hash)) {
      own.add(hash)
      return
    }
    // Past a bound, an agent's oldest state goes: its own past its share; else, past the total,
    // that of the agent holding the most, so that no agent's calls push out another's states
    // while it holds more than they do.
    if (own.size >= this.#perAgent) this.#forgetOldestOf(agent)
    else if (this.#size >= this.#kept) this.#forgetOldestOf(this.#largest(agent, own.size))
    own.add(hash)
    this.#byAgent.set(agent, own)
    this.#size++
  }

  /** Was `state` given to `agent`? */
  allows(state: string, agent: string): boolean {
    const own = this.#byAgent.get(agent)
    if (own === undefined) return false
    const hash = hashOf(state)
    if (!own.delete(hash)) return false
    own.add(hash)
    return true
  }

  /** States remembered (for tests). */
  get size(): number {
    return this.#size
  }

  /** The agent holding the most states; `agent`, holding `held`, when it holds as many. */
  #largest(agent: string, held: number): string {
    let largest = agent
    let most = held
    for (const [name, states] of this.#byAgent) {
      if (states.size > most) {
        largest = name
        most = states.size
      }
    }
    return largest
  }

  /** Forget `agent`'s least recently used state. */
  #forgetOldestOf(agent: string): void {
    const states = this.#byAgent.get(agent)
    const oldest = states?.values().next()
    if (states === undefined || oldest === undefined || oldest.done) return
    states.delete(oldest.value)
    this.#size--
    if (states.size === 0) this.#byAgent.delete(agent)
  }
}

/**
 * A state's hash, over its UTF-16 code units: as UTF-8, every lone surrogate is written as
 * U+FFFD, and two states a server tells apart would be one here.
 */
function hashOf(state: string): string {
  return createHash('sha256').update(state, 'utf16le').digest('base64url')
}
