/**
 * Which agent opened each MCP session of a local HTTP server, so that on `oauth` and `token`
 * tunnels one approved agent cannot use (or end) another's session by its id: MCP asks servers
 * to bind sessions to the user, and the local server never learns who the agent is; the edge
 * names it to `burrow up` in `Burrow-Agent` (set by the edge only). A session id the local
 * server gave in answer to an agent's request is that agent's; on such tunnels a request naming
 * a session it does not own (another agent's, or one this process never saw: opened before it
 * started, under another access mode, or forgotten as the oldest) is answered 404, and the agent
 * initializes again, as the MCP spec has it. Public tunnels name no agent and bind nothing: the
 * session id, random, is all there is (docs/security.md).
 */

/** Sessions remembered at once; the least recently used is forgotten first. */
export const SESSION_OWNERS_KEPT = 20_000
/**
 * Sessions remembered for one agent: its least recently used goes first when it opens more, so
 * that one approved agent opening sessions in a loop pushes out its own, not other agents'.
 */
export const SESSIONS_PER_AGENT = 1_000

/** The owners of a local HTTP server's sessions, bounded, most recently used last. */
export class SessionOwners {
  readonly #owners = new Map<string, string>()
  /** Sessions remembered per agent. */
  readonly #counts = new Map<string, number>()
  readonly #kept: number
  readonly #perAgent: number

  constructor(kept = SESSION_OWNERS_KEPT, perAgent = SESSIONS_PER_AGENT) {
    this.#kept = kept
    this.#perAgent = perAgent
  }

  /**
   * May a request as `agent` (undefined on public tunnels) use session `id`? Yes on a public
   * tunnel for a session no agent owns; otherwise only for the session's owner.
   */
  allows(id: string, agent: string | undefined): boolean {
    const owner = this.#owners.get(id)
    if (owner === undefined) return agent === undefined
    if (owner !== agent) return false
    this.#owners.delete(id)
    this.#owners.set(id, owner)
    return true
  }

  /** Whether an agent opened session `id` (and it has not ended since). */
  known(id: string): boolean {
    return this.#owners.has(id)
  }

  /** The local server gave session `id` in answer to `agent`: it is theirs (the first owner stays). */
  opened(id: string, agent: string): void {
    if (this.#owners.has(id)) return
    if ((this.#counts.get(agent) ?? 0) >= this.#perAgent) this.#forgetOldestOf(agent)
    this.#owners.set(id, agent)
    this.#counts.set(agent, (this.#counts.get(agent) ?? 0) + 1)
    if (this.#owners.size > this.#kept) {
      const oldest = this.#owners.keys().next().value
      if (oldest !== undefined) this.ended(oldest)
    }
  }

  /** Session `id` ended (deleted, or the server no longer knows it). */
  ended(id: string): void {
    const owner = this.#owners.get(id)
    if (owner === undefined) return
    this.#owners.delete(id)
    const left = (this.#counts.get(owner) ?? 1) - 1
    if (left > 0) this.#counts.set(owner, left)
    else this.#counts.delete(owner)
  }

  /** Forget `agent`'s least recently used session. */
  #forgetOldestOf(agent: string): void {
    for (const [id, owner] of this.#owners) {
      if (owner === agent) {
        this.ended(id)
        return
      }
    }
  }

  /** Sessions remembered. */
  get size(): number {
    return this.#owners.size
  }
}
