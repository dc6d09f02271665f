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
 * than a short one. Public tunnels name no agent and bind nothing (docs/security.md).
 */
import { createHash } from 'node:crypto'

/** States remembered at once; the least recently used is forgotten first. */
export const REQUEST_STATES_KEPT = 20_000
/**
 * States remembered for one agent: its least recently used goes first when it is given more, so
 * that one agent's calls push out its own states, not other agents'.
 */
export const REQUEST_STATES_PER_AGENT = 1_000

/** The agents a local HTTP server gave its `requestState`s to, bounded, most recently used last. */
export class RequestStateOwners {
  /** `agent` NUL `hash of the state`, to the agent. */
  readonly #given = new Map<string, string>()
  /** States remembered per agent. */
  readonly #counts = new Map<string, number>()
  readonly #kept: number
  readonly #perAgent: number

  constructor(kept = REQUEST_STATES_KEPT, perAgent = REQUEST_STATES_PER_AGENT) {
    this.#kept = kept
    this.#perAgent = perAgent
  }

  /** The local server gave `state` to `agent` in an answer. */
  given(state: string, agent: string): void {
    const key = keyOf(state, agent)
    if (this.#given.delete(key)) {
      this.#given.set(key, agent)
      return
    }
    if ((this.#counts.get(agent) ?? 0) >= this.#perAgent) this.#forgetOldestOf(agent)
    this.#given.set(key, agent)
    this.#counts.set(agent, (this.#counts.get(agent) ?? 0) + 1)
    if (this.#given.size > this.#kept) {
      const oldest = this.#given.keys().next().value
      if (oldest !== undefined) this.#forget(oldest)
    }
  }

  /** Was `state` given to `agent`? */
  allows(state: string, agent: string): boolean {
    const key = keyOf(state, agent)
    if (!this.#given.delete(key)) return false
    this.#given.set(key, agent)
    return true
  }

  /** States remembered (for tests). */
  get size(): number {
    return this.#given.size
  }

  #forget(key: string): void {
    const agent = this.#given.get(key)
    if (agent === undefined) return
    this.#given.delete(key)
    const left = (this.#counts.get(agent) ?? 1) - 1
    if (left > 0) this.#counts.set(agent, left)
    else this.#counts.delete(agent)
  }

  /** Forget `agent`'s least recently used state. */
  #forgetOldestOf(agent: string): void {
    for (const [key, owner] of this.#given) {
      if (owner === agent) {
        this.#forget(key)
        return
      }
    }
  }
}

function keyOf(state: string, agent: string): string {
  return `${agent}\u0000${createHash('sha256').update(state).digest('base64url')}`
}
