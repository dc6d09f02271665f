/**
 * Session places for a single burrowd node, in process memory: per tunnel, a map from entry
 * (`r:<reservation>` or `s:<session id>`) to the time it expires. Every check-and-change runs
 * synchronously, so it is exact under any concurrency. Nothing is persisted: after a restart,
 * sessions opened before it keep working but are no longer counted.
 */

import { randomUUID } from 'node:crypto'
import { checkCap, checkSessionInput } from './check-session-input.js'
import { DEFAULT_RESERVATION_MS } from './session-tracker.js'
import type { ReserveResult, SessionTracker, SessionTrackerOptions } from './session-tracker.js'

/** Entries of one tunnel: expiry in epoch milliseconds by entry. */
type Places = Map<string, number>

/** Exact session places of the tunnels served by this process. */
export class MemorySessionTracker implements SessionTracker {
  readonly #idleMs: number
  readonly #reservationMs: number
  readonly #clock: () => Date
  readonly #tunnels = new Map<string, Places>()
  /** When every tunnel was last swept of expired entries (tunnels nobody asks about too). */
  #sweptAt = 0
  #closed = false

  constructor(options: SessionTrackerOptions) {
    this.#idleMs = options.idleMs
    this.#reservationMs = options.reservationMs ?? DEFAULT_RESERVATION_MS
    this.#clock = options.clock ?? (() => new Date())
  }

  async reserve(tunnelId: string, cap: number, now: Date = this.#clock()): Promise<ReserveResult> {
    checkSessionInput(tunnelId)
    checkCap(cap)
    this.#assertOpen()
    const at = now.getTime()
    this.#sweepAll(at)
    const places = this.#live(tunnelId, at)
    if (places.size >= cap) return { ok: false, open: places.size }
    const reservation = randomUUID()
    places.set(`r:${reservation}`, at + this.#reservationMs)
    this.#tunnels.set(tunnelId, places)
    return { ok: true, reservation }
  }

  async open(
    tunnelId: string,
    reservation: string,
    sessionId: string,
    now: Date = this.#clock(),
  ): Promise<void> {
    checkSessionInput(tunnelId, sessionId)
    this.#assertOpen()
    const places = this.#tunnels.get(tunnelId) ?? new Map<string, number>()
    places.delete(`r:${reservation}`)
    places.set(`s:${sessionId}`, now.getTime() + this.#idleMs)
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
    const expires = places?.get(entry)
    const at = now.getTime()
    if (places === undefined || expires === undefined) return
    if (expires <= at) places.delete(entry)
    else places.set(entry, at + this.#idleMs)
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
    for (const [entry, expires] of places) if (expires <= at) places.delete(entry)
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
