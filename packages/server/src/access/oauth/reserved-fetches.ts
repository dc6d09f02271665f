/**
 * The share of the node's Client ID Metadata Document fetches kept for documents of clients that
 * hold a grant (an owner approved them): strangers asking for sign-ins of unknown clients, from
 * as many addresses as they like, spend the node's common budget and never this one. Each
 * document draws on it at most once every 10 minutes on a node (a working one is then cached for
 * an hour), so a client whose document server fails or stalls cannot spend the share on its own,
 * however often its sign-in is asked for. Every account may approve clients, its own documents
 * among them: one account's approved documents draw at most `RESERVED_METADATA_FETCHES_PER_ACCOUNT`
 * a minute, counted against the account whose grant lets the document draw (of those holding a
 * grant of it, the first with room), so one that approved hundreds of its own cannot empty the
 * share for everyone else's approved clients.
 */
import { RateLimiter } from '../../http/rate-limiter.js'

/** Reserved fetches per minute, on a node, for documents of clients with grants. */
export const RESERVED_METADATA_FETCHES_PER_NODE = 30

/**
 * Reserved fetches per minute, on a node, one account's grants may make: a sixth of the share,
 * far above what an account's approved clients need (a document is fetched again once an hour).
 */
export const RESERVED_METADATA_FETCHES_PER_ACCOUNT = 5

/** How long a document waits before it may draw on the reserve again, in ms. */
export const RESERVED_REFETCH_MS = 10 * 60_000

/** Documents remembered at most (each for `RESERVED_REFETCH_MS`: the share gives 300 at most). */
const MAX_REMEMBERED = 1_000

/** The reserved share of a node's metadata fetches. */
export class ReservedFetches {
  readonly #now: () => number
  readonly #bucket: RateLimiter
  readonly #perAccount: RateLimiter
  /** Document URL → when it last drew on the reserve, oldest first. */
  readonly #lastDrawn = new Map<string, number>()

  constructor(
    now: () => number,
    perMinute = RESERVED_METADATA_FETCHES_PER_NODE,
    perAccount = RESERVED_METADATA_FETCHES_PER_ACCOUNT,
  ) {
    this.#now = now
    this.#bucket = new RateLimiter({ capacity: perMinute, perMs: 60_000, now })
    this.#perAccount = new RateLimiter({ capacity: perAccount, perMs: 60_000, now })
  }

  /**
   * Whether the document at `clientId` may draw on the share now, as far as that is known without
   * the accounts that approved it: reading those costs a query over all its grants (a popular
   * client's are many), so it is made only when this says yes, not at every sign-in of a document
   * that drew in the last 10 minutes or while the share is spent.
   */
  mayDraw(clientId: string): boolean {
    const last = this.#lastDrawn.get(clientId)
    if (last !== undefined && this.#now() - last < RESERVED_REFETCH_MS) return false
    return this.#bucket.peek('node').ok
  }

  /**
   * Take a reserved fetch for the document at `clientId`, approved by `accounts` (those whose
   * grants name it); false when none may be had: none of them has room left, or the share none.
   */
  take(clientId: string, accounts: readonly string[]): boolean {
    const now = this.#now()
    this.#prune(now)
    const last = this.#lastDrawn.get(clientId)
    if (last !== undefined && now - last < RESERVED_REFETCH_MS) return false
    const account = accounts.find((a) => this.#perAccount.peek(a).ok)
    if (account === undefined || !this.#bucket.take('node').ok) return false
    this.#perAccount.take(account)
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
