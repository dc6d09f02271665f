/**
 * Each tunnel's rug-pull pins in memory (tool-pins.ts): loaded from the store and kept a few
 * seconds, dropped when an approval or another node changed them. A read of the pins under way
 * when they were dropped serves its caller only and is not cached (it may hold what the change
 * replaced), and the paging of lists outlives a drop and a reload (list-paging.ts).
 */
import type { ClusterEvents } from '../cluster/cluster-events.js'
import type { ToolPinsStore } from '../store/tool-pins-store.js'
import { Invalidations } from './invalidations.js'
import { keptChars } from './kept-definitions.js'
import { carriedPaging } from './list-paging.js'
import type { PinState } from './pin-state.js'

/** Options of `new PinCache`. */
export interface PinCacheOptions {
  readonly store: ToolPinsStore
  readonly events: ClusterEvents
  readonly ttlMs?: number
  readonly now: () => number
  /** The writes queued for a tunnel's pins, if any: a load waits for them to land. */
  readonly queued: (tunnelId: string) => Promise<unknown> | undefined
}

/** Most tunnels whose pins (or paging carried over a drop) are kept in memory. */
const MAX_CACHED = 10_000

/** The tunnels' pins in memory. */
export class PinCache {
  readonly #opts: PinCacheOptions
  readonly #cache = new Map<string, PinState>()
  readonly #loading = new Map<string, Promise<PinState>>()
  /** Drops of each tunnel's pins: a read under way across one caches nothing. */
  readonly #dropped = new Invalidations()
  /** The state each dropped tunnel had: its paging outlives the drop (list-paging.ts). */
  readonly #carried = new Map<string, PinState>()

  constructor(opts: PinCacheOptions) {
    this.#opts = opts
    opts.events.subscribe((event) => {
      if (event.type === 'tunnel') this.drop(event.tunnelId)
    })
  }

  /** The pins of `tunnelId` when the cache holds them fresh, without waiting; else undefined. */
  cached(tunnelId: string): PinState | undefined {
    const cached = this.#cache.get(tunnelId)
    const fresh = cached && this.#opts.now() - cached.loadedAt < (this.#opts.ttlMs ?? 5000)
    return fresh ? cached : undefined
  }

  /**
   * The newest pins of `tunnelId` in memory, fresh or not: the cached ones, else those a drop
   * carried; undefined when none are held.
   */
  held(tunnelId: string): PinState | undefined {
    return this.#cache.get(tunnelId) ?? this.#carried.get(tunnelId)
  }

  /** The pins of `tunnelId` (loaded, or from the cache). */
  state(tunnelId: string): Promise<PinState> {
    const fresh = this.cached(tunnelId)
    if (fresh !== undefined) return Promise.resolve(fresh)
    const cached = this.#cache.get(tunnelId)
    const loading = this.#loading.get(tunnelId)
    if (loading) return loading
    const generation = this.#dropped.of(tunnelId)
    // Writes queued here land first, so the state read back includes them.
    const load: Promise<PinState> = (this.#opts.queued(tunnelId) ?? Promise.resolve())
      .then(() => this.#opts.store.load(tunnelId))
      .then((stored) => {
        const now = this.#opts.now()
        const state: PinState = {
          baselined: stored.baselined,
          ...carriedPaging(cached ?? this.#carried.get(tunnelId), now),
          pins: new Map(stored.pins.map((p) => [p.name, p])),
          forgotten: stored.forgotten,
          listChangedAt: stored.listChangedAt,
          loadedAt: now,
          definitionChars: stored.pins.reduce((n, p) => n + keptChars(p), 0),
        }
        // The pins changed while this read was under way: it may be older, so it serves this
        // caller only.
        if (generation !== this.#dropped.of(tunnelId)) return state
        if (this.#cache.size >= MAX_CACHED) this.#cache.clear()
        this.#cache.set(tunnelId, state)
        return state
      })
      .finally(() => {
        if (this.#loading.get(tunnelId) === load) this.#loading.delete(tunnelId)
      })
    this.#loading.set(tunnelId, load)
    return load
  }

  /** Forget what is cached of `tunnelId`, and what a read begun before now would cache. */
  drop(tunnelId: string): void {
    const cached = this.#cache.get(tunnelId)
    if (this.#carried.size >= MAX_CACHED) this.#carried.clear()
    if (cached) this.#carried.set(tunnelId, cached)
    this.#cache.delete(tunnelId)
    this.#loading.delete(tunnelId)
    this.#dropped.note(tunnelId)
  }
}
