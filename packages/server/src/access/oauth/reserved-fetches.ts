/**
 * The share of the node's Client ID Metadata Document fetches kept for documents of clients that
 * hold a grant (an owner approved them): strangers asking for sign-ins of unknown clients, from
 * as many addresses as they like, spend the node's common budget and never this one. Each
 * document draws on it at most once every 10 minutes on a node (a working one is then cached for
 * an hour), so a client whose document server fails or stalls cannot spend the share on its own,
 * however often its sign-in is asked for.
 */
import { RateLimiter } from '../../http/rate-limiter.js'

/** Reserved fetches per minute, on a node, for documents of clients with grants. */
export const RESERVED_METADATA_FETCHES_PER_NODE = 30

/** How long a document waits before it may draw on the reserve again, in ms. */
export const RESERVED_REFETCH_MS = 10 * 60_000

/** Documents remembered at most (each for `RESERVED_REFETCH_MS`: the share gives 300 at most). */
const MAX_REMEMBERED = 1_000

/** The reserved share of a node's metadata fetches. */
export class ReservedFetches {
  readonly #now: () => number
  readonly #bucket: RateLimiter
  /** Document URL → when it last drew on the reserve, oldest first. */
  readonly #lastDrawn = new Map<string, number>()

  constructor(now: () => number, perMinute = RESERVED_METADATA_FETCHES_PER_NODE) {
    this.#now = now
    this.#bucket = new RateLimiter({ capacity: perMinute, perMs: 60_000, now })
  }

  /** Take a reserved fetch for the document at `clientId`; false when none may be had. */
  take(clientId: string): boolean {
    const now = this.#now()
    this.#prune(now)
    const last = this.#lastDrawn.get(clientId)
    if (last !== undefined && now - last < RESERVED_REFETCH_MS) return false
    if (!this.#bucket.take('node').ok) return false
    this.#lastDrawn.delete(clientId)
    this.#lastDrawn.set(clientId, now)
    return true
  }

  #prune(now: number): void {
    for (const [url, at] of this.#lastDrawn) {
      if (now - at < RESERVED_REFETCH_MS && this.#lastDrawn.size < MAX_REMEMBERED) break
      this.#lastDrawn.delete(url)
    }
  }
}
