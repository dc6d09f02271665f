/**
 * The `tools/list` requests the edge is relaying now, per tunnel and scope (the agent's session,
 * or for requests without one its client address: the caller names the scope). While one is
 * pending, an answer to another request of the same scope that the edge could not read whole
 * (past the bound of its copy) may be the agent's listing in disguise: agents match an answer by
 * its id, whatever response carries it. Only requests in flight are held, so the map stays as
 * small as the node's traffic.
 *
 * With several nodes, an agent's listing and its other requests can land on different nodes:
 * each node tells the others how many listings it has in flight for a tunnel and scope when that
 * changes, and again every `RETELL_LISTINGS_MS` while any is (cluster events, naming the tunnel
 * and scope only by a hash), and counts theirs beside its own. What a node told is forgotten
 * `HEARD_LISTING_MS` after it last told it (the node died, or a message was lost).
 */
import { createHash } from 'node:crypto'
import type { ClusterEvents } from '../cluster/cluster-events.js'

/** How long what another node told of its listings counts without its telling it again. */
export const HEARD_LISTING_MS = 60_000

/** Between a node's retelling of the listings it has in flight (well within the above). */
export const RETELL_LISTINGS_MS = 20_000

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
  /** Other nodes' listings in flight, by hashed key and node: how many, and until when. */
  readonly #heard = new Map<string, Map<string, { count: number; until: number }>>()
  readonly #shared: SharedListings | undefined
  readonly #now: () => number
  #nextSweep = 0
  #retell: NodeJS.Timeout | undefined

  constructor(shared?: SharedListings) {
    this.#shared = shared
    this.#now = shared?.now ?? Date.now
    shared?.events.subscribe((event) => {
      if (event.type === 'listing' && event.node !== shared.node) {
        this.#hear(event.node, event.key, event.count)
      }
    })
  }

  /** A listing for `tunnelId`'s `scope` is in flight until the returned call. */
  add(tunnelId: string, scope: string | undefined): () => void {
    const key = keyOf(tunnelId, scope)
    this.#counts.set(key, (this.#counts.get(key) ?? 0) + 1)
    this.#tell(key)
    let done = false
    return () => {
      if (done) return
      done = true
      const left = (this.#counts.get(key) ?? 1) - 1
      if (left > 0) this.#counts.set(key, left)
      else this.#counts.delete(key)
      this.#tell(key)
    }
  }

  /** Retell every listing in flight here (what the timer does while any is). */
  retell(): void {
    for (const key of this.#counts.keys()) this.#tell(key)
  }

  /** Whether a listing of `tunnelId`'s `scope` is in flight, here or on another node. */
  has(tunnelId: string, scope: string | undefined): boolean {
    const key = keyOf(tunnelId, scope)
    if (this.#counts.has(key)) return true
    if (this.#heard.size === 0) return false
    const now = this.#now()
    for (const told of this.#heard.get(hashOf(key))?.values() ?? []) {
      if (told.count > 0 && told.until > now) return true
    }
    return false
  }

  /** Scopes with a listing in flight on this node (for tests). */
  get size(): number {
    return this.#counts.size
  }

  /** Scopes with a listing in flight on other nodes, as heard (for tests). */
  get heardSize(): number {
    return this.#heard.size
  }

  /** Tell the other nodes how many listings of `key` are in flight here now. */
  #tell(key: string): void {
    const shared = this.#shared
    if (!shared) return
    const count = this.#counts.get(key) ?? 0
    void shared.events.publish({ type: 'listing', node: shared.node, key: hashOf(key), count })
    if (this.#counts.size > 0 && this.#retell === undefined) {
      this.#retell = setInterval(() => this.retell(), RETELL_LISTINGS_MS)
      this.#retell.unref()
    } else if (this.#counts.size === 0 && this.#retell !== undefined) {
      clearInterval(this.#retell)
      this.#retell = undefined
    }
  }

  #hear(node: unknown, key: unknown, count: unknown): void {
    if (typeof node !== 'string' || typeof key !== 'string') return
    if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0) return
    const now = this.#now()
    if (now >= this.#nextSweep) {
      this.#nextSweep = now + SWEEP_MS
      for (const [k, nodes] of this.#heard) {
        for (const [n, told] of nodes) if (told.until <= now) nodes.delete(n)
        if (nodes.size === 0) this.#heard.delete(k)
      }
    }
    let nodes = this.#heard.get(key)
    if (count === 0) {
      nodes?.delete(node)
      if (nodes?.size === 0) this.#heard.delete(key)
      return
    }
    if (!nodes) {
      nodes = new Map()
      this.#heard.set(key, nodes)
    }
    nodes.set(node, { count, until: now + HEARD_LISTING_MS })
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
