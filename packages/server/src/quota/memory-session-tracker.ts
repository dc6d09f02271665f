/**
 * Session places for a single burrowd node, in process memory: per tunnel, a map from entry
 * (`r:<reservation>` or `s:<session id>`) to the time it expires and, for a session held in use,
 * the time its lease ends. Every check-and-change runs
 * synchronously, so it is exact under any concurrency. Nothing is persisted: after a restart,
 * sessions opened before it take places again as they are used (`hold`).
 */

import { randomUUID } from 'node:crypto'
import { checkCap, checkSessionInput } from './check-session-input.js'
import { DEFAULT_LEASE_MS, DEFAULT_RESERVATION_MS } from './session-tracker.js'
import type { ReserveResult, SessionTracker, SessionTrackerOptions } from './session-tracker.js'

/** One entry: when it expires and until when it is in use (epoch milliseconds; 0: idle). */
interface Place {
  expires: number
  busyUntil: number
}

/** Entries of one tunnel, by entry. */
type Places = Map<string, Place>

/** Exact session places of the tunnels served by this process. */
export class MemorySessionTracker implements SessionTracker {
  readonly #idleMs: number
  readonly #reservationMs: number
  readonly #leaseMs: number
  readonly #clock: () => Date
  readonly #tunnels = new Map<string, Places>()
  /** When every tunnel was last swept of expired entries (tunnels nobody asks about too). */
  #sweptAt = 0
  #closed = false

  constructor(options: SessionTrackerOptions) {
    this.#idleMs = options.idleMs
    this.#reservationMs = options.reservationMs ?? DEFAULT_RESERVATION_MS
    this.#leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS
    this.#clock = options.clock ?? (() => new Date())
  }

  async reserve(tunnelId: string, cap: number, now: Date = this.#clock()): Promise<ReserveResult> {
    checkSessionInput(tunnelId)
    checkCap(cap)
    this.#assertOpen()
    const at = now.getTime()
    this.#sweepAll(at)
    const places = this.#live(tunnelId, at)
    let displaced: string | undefined
    if (places.size >= cap) {
      const idle = cap > 0 ? longestIdle(places, at) : undefined
      if (idle === undefined) return { ok: false, open: places.size }
      places.delete(idle)
      displaced = idle.slice(2)
    }
    const reservation = randomUUID()
    places.set(`r:${reservation}`, { expires: at + this.#reservationMs, busyUntil: 0 })
    this.#tunnels.set(tunnelId, places)
    return displaced === undefined
      ? { ok: true, reservation }
      : { ok: true, reservation, displaced }
  }

  async open(
    tunnelId: string,
    reservation: string,
    sessionId: string,
    now: Date = this.#clock(),
    held = false,
  ): Promise<void> {
    checkSessionInput(tunnelId, sessionId)
    this.#assertOpen()
    const at = now.getTime()
    const places = this.#tunnels.get(tunnelId) ?? new Map<string, Place>()
    places.delete(`r:${reservation}`)
    const busyUntil = held ? at + this.#leaseMs : 0
    places.set(`s:${sessionId}`, { expires: Math.max(busyUntil, at + this.#idleMs), busyUntil })
    this.#tunnels.set(tunnelId, places)
  }

  async release(tunnelId: string, reservation: string): Promise<void> {
    checkSessionInput(tunnelId)
    this.#assertOpen()
    this.#remove(tunnelId, `r:${reservation}`)
  }

  async touch(tunnelId: string, sessionId: string, now: Date = this.#clock()): Promise<void> {
    checkSessionInput(tunnelId, sessionId)
    this.#assertOpen()
    const places = this.#tunnels.get(tunnelId)
    const entry = `s:${sessionId}`
    const place = places?.get(entry)
    const at = now.getTime()
    if (places === undefined || place === undefined) return
    if (place.expires <= at) places.delete(entry)
    else place.expires = Math.max(place.expires, at + this.#idleMs)
  }

  async hold(
    tunnelId: string,
    sessionId: string,
    cap: number,
    now: Date = this.#clock(),
  ): Promise<boolean> {
    checkSessionInput(tunnelId, sessionId)
    checkCap(cap)
    this.#assertOpen()
    const at = now.getTime()
    const places = this.#live(tunnelId, at)
    const entry = `s:${sessionId}`
    if (!places.has(entry) && places.size >= cap) {
      const idle = cap > 0 ? longestIdle(places, at) : undefined
      if (idle === undefined) return false
      places.delete(idle)
    }
    const busyUntil = at + this.#leaseMs
    places.set(entry, { expires: Math.max(busyUntil, at + this.#idleMs), busyUntil })
    this.#tunnels.set(tunnelId, places)
    return true
  }

  async letGo(tunnelId: string, sessionId: string, now: Date = this.#clock()): Promise<void> {
    checkSessionInput(tunnelId, sessionId)
    this.#assertOpen()
    const at = now.getTime()
    const place = this.#tunnels.get(tunnelId)?.get(`s:${sessionId}`)
    if (place === undefined || place.expires <= at) return
    place.busyUntil = 0
    place.expires = at + this.#idleMs
  }

  async end(tunnelId: string, sessionId: string): Promise<void> {
    checkSessionInput(tunnelId, sessionId)
    this.#assertOpen()
    this.#remove(tunnelId, `s:${sessionId}`)
  }

  async count(tunnelId: string, now: Date = this.#clock()): Promise<number> {
    checkSessionInput(tunnelId)
    this.#assertOpen()
    return this.#live(tunnelId, now.getTime()).size
  }

  async close(): Promise<void> {
    this.#closed = true
    this.#tunnels.clear()
  }

  /** The tunnel's entries with the expired ones dropped (a new empty map when it has none). */
  #live(tunnelId: string, at: number): Places {
    const places = this.#tunnels.get(tunnelId)
    if (places === undefined) return new Map()
    for (const [entry, place] of places) if (place.expires <= at) places.delete(entry)
    if (places.size === 0) this.#tunnels.delete(tunnelId)
    return places
  }

  #remove(tunnelId: string, entry: string): void {
    const places = this.#tunnels.get(tunnelId)
    if (places === undefined) return
    places.delete(entry)
    if (places.size === 0) this.#tunnels.delete(tunnelId)
  }

  /** Drop expired entries of every tunnel, at most once per idle timeout, so memory stays bounded. */
  #sweepAll(at: number): void {
    if (at - this.#sweptAt < this.#idleMs) return
    this.#sweptAt = at
    for (const tunnelId of [...this.#tunnels.keys()]) this.#live(tunnelId, at)
  }

  #assertOpen(): void {
    if (this.#closed) throw new Error('session tracker is closed')
  }
}

/** The session entry not in use at `at` whose idle timeout ends first (idle the longest). */
function longestIdle(places: Places, at: number): string | undefined {
  let found: string | undefined
  let earliest = Infinity
  for (const [entry, place] of places) {
    if (!entry.startsWith('s:') || place.busyUntil > at) continue
    if (place.expires < earliest) {
      earliest = place.expires
      found = entry
    }
  }
  return found
}
