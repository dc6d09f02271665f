/**
 * The log lines of node links this node could not open, at most one a minute per peer with the
 * count of failures since its last line: every public request for a tunnel held on a peer that
 * is down or refuses the link meets the failure, and strangers choose how many requests that is.
 * Per peer, so that a peer down for good does not keep another, failing at the same time, out of
 * the log (found by a review of the first, node-wide, bound).
 */
import type { Logger } from '@burrow/protocol'

/** Milliseconds between two lines about one peer. */
export const LINK_FAILURE_LOG_MS = 60_000

/** Peers remembered at most; past it, the oldest is forgotten (its next failure logs at once). */
const MAX_PEERS = 1_000

/** Failures per peer URL since its last line, and when that was. */
export class LinkFailureLog {
  readonly #log: Logger
  readonly #now: () => number
  readonly #peers = new Map<string, { failures: number; loggedAt: number }>()

  constructor(log: Logger, now: () => number = Date.now) {
    this.#log = log
    this.#now = now
  }

  /** A link to `peer` could not be opened, for `err`. */
  failed(peer: string, err: Error): void {
    const now = this.#now()
    const seen = this.#peers.get(peer)
    if (seen !== undefined && now - seen.loggedAt < LINK_FAILURE_LOG_MS) {
      seen.failures += 1
      return
    }
    const more = seen?.failures ?? 0
    this.#log.warn(
      `cluster: ${err.message}${more > 0 ? ` (and ${more} more failed links to it since the last line)` : ''}; next line about it in a minute at most`,
    )
    this.#peers.delete(peer)
    if (this.#peers.size >= MAX_PEERS) this.#peers.delete(this.#peers.keys().next().value!)
    this.#peers.set(peer, { failures: 0, loggedAt: now })
  }
}
