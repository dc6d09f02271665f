/**
 * What a policy decided about names it matched before, kept so that a name is matched against the
 * globs once, not on every call and listing: the budget that pays for matches (glob-budget.ts) is
 * shared with the node's other tunnels, and once other tenants spent it, an ordinary tool name
 * whose match it could not pay for was refused (tool_denied) or counted for every rate limit
 * (found by a review). Names an agent invents do not push the ordinary ones out for long: the
 * map holds `MAX_DECIDED_NAMES` short names, and when full forgets the oldest.
 */

/** Names kept: as many as a server's listing of tools usually holds, a few times over. */
export const MAX_DECIDED_NAMES = 256

/** The longest name kept (MCP's bound on tool names): longer ones are matched every time. */
export const MAX_DECIDED_NAME_CHARS = 128

/** A bounded map of decisions by name (at most 256 names of 128 characters). */
export class DecidedNames<T> {
  readonly #decided = new Map<string, T>()

  /** What was decided for `name`, or undefined. */
  get(name: string): T | undefined {
    return this.#decided.get(name)
  }

  /** Keep `decision` for `name` (a short name only), forgetting the oldest when full. */
  set(name: string, decision: T): void {
    if (name.length > MAX_DECIDED_NAME_CHARS) return
    if (!this.#decided.has(name) && this.#decided.size >= MAX_DECIDED_NAMES) {
      const oldest = this.#decided.keys().next().value
      if (oldest !== undefined) this.#decided.delete(oldest)
    }
    this.#decided.set(name, decision)
  }
}
