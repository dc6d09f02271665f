/**
 * The `tools/list` requests the edge is relaying now, per tunnel and scope (the agent's session,
 * or for requests without one its client address: the caller names the scope). While one is
 * pending, an answer to another request of the same scope that the edge could not read whole
 * (past the bound of its copy) may be the agent's listing in disguise: agents match an answer by
 * its id, whatever response carries it. Only requests in flight are held, so the map stays as
 * small as the node's traffic.
 *
 * With several nodes, an agent's listing and its other requests can land on different nodes:
 * each node tells the others when a listing starts and ends (cluster events, naming the tunnel
 * and scope only by a hash), and counts theirs beside its own. A start whose end never comes (its
 * node died) is forgotten after `HEARD_LISTING_MS`.
 */
import { createHash } from 'node:crypto'
import type { ClusterEvents } from '../cluster/cluster-events.js'

/** How long another node's listing counts without news of its end. */
export const HEARD_LISTING_MS = 60_000

/** How often forgotten starts of other nodes' listings are swept. */
const SWEEP_MS = 10_000

/** The nodes sharing listings: their events, and this node's id (to skip its own). */
export interface SharedListings {
  readonly events: ClusterEvents
  readonly node: string
  /** The clock, in milliseconds (tests). */
  readonly now?: () => number
}

export class PendingListings {
  readonly #counts = new Map<string, number>()
  /** Other nodes' listings in flight, by hashed key: how many, and until when they count. */
  readonly #heard = new Map<string, { count: number; until: number }>()
  readonly #shared: SharedListings | undefined
  readonly #now: () => number
  #nextSweep = 0

  constructor(shared?: SharedListings) {
    this.#shared = shared
    this.#now = shared?.now ?? Date.now
    shared?.events.subscribe((event) => {
      if (event.type === 'listing' && event.node !== shared.node) this.#hear(event.key, event.open)
    })
  }

  /** A listing for `tunnelId`'s `scope` is in flight until the returned call. */
  add(tunnelId: string, scope: string | undefined): () => void {
    const key = keyOf(tunnelId, scope)
    this.#counts.set(key, (this.#counts.get(key) ?? 0) + 1)
    this.#tell(key, true)
    let done = false
    return () => {
      if (done) return
      done = true
      const left = (this.#counts.get(key) ?? 1) - 1
      if (left > 0) this.#counts.set(key, left)
      else this.#counts.delete(key)
      this.#tell(key, false)
    }
  }

  /** Whether a listing of `tunnelId`'s `scope` is in flight, here or on another node. */
  has(tunnelId: string, scope: string | undefined): boolean {
    const key = keyOf(tunnelId, scope)
    if (this.#counts.has(key)) return true
    if (this.#heard.size === 0) return false
    const heard = this.#heard.get(hashOf(key))
    return heard !== undefined && heard.until > this.#now()
  }

  /** Scopes with a listing in flight on this node (for tests). */
  get size(): number {
    return this.#counts.size
  }

  /** Scopes with a listing in flight on other nodes, as heard (for tests). */
  get heardSize(): number {
    return this.#heard.size
  }

  #tell(key: string, open: boolean): void {
    const shared = this.#shared
    if (!shared) return
    void shared.events.publish({ type: 'listing', node: shared.node, key: hashOf(key), open })
  }

  #hear(key: unknown, open: unknown): void {
    if (typeof key !== 'string' || typeof open !== 'boolean') return
    const now = this.#now()
    if (now >= this.#nextSweep) {
      this.#nextSweep = now + SWEEP_MS
      for (const [k, v] of this.#heard) if (v.until <= now) this.#heard.delete(k)
    }
    const entry = this.#heard.get(key)
    if (open) {
      const live = entry !== undefined && entry.until > now
      this.#heard.set(key, { count: (live ? entry.count : 0) + 1, until: now + HEARD_LISTING_MS })
    } else if (entry) {
      if (entry.count > 1) entry.count--
      else this.#heard.delete(key)
    }
  }
}

/** One key per tunnel and scope (tunnel ids hold no line end). */
function keyOf(tunnelId: string, scope: string | undefined): string {
  return `${tunnelId}\n${scope ?? ''}`
}

/** What other nodes are told of a key: not the session id or address it holds. */
function hashOf(key: string): string {
  return createHash('sha256').update(key).digest('base64url').slice(0, 22)
}
