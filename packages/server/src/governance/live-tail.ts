/**
 * The live tail of the Traffic tab: every call recorded for a tunnel is handed at once to the
 * pages watching it (server-sent events from burrowd to the page). Bounded: a few watchers per
 * tunnel, and a watcher that falls behind loses calls (it is told how many) rather than making
 * burrowd hold them. Per node: with several nodes a page sees the calls that arrive at the node
 * serving it.
 */
import type { CallRecord } from '../quota/call-history.js'

/** What a watcher receives. */
export type TailEvent =
  | { readonly type: 'call'; readonly call: CallRecord }
  | { readonly type: 'dropped'; readonly count: number }

/** A watcher: `send` returns false when it cannot take more now. */
export interface TailWatcher {
  send(event: TailEvent): boolean
}

/** Watchers at once per tunnel. */
export const MAX_WATCHERS = 20

/** Live tails of every tunnel. */
export class LiveTail {
  readonly #watchers = new Map<string, Map<TailWatcher, { dropped: number }>>()

  /**
   * Watch `tunnelId`; null when it has too many watchers. Returns a function to stop, which may
   * be called more than once: only the first call counts.
   */
  watch(tunnelId: string, watcher: TailWatcher): (() => void) | null {
    let set = this.#watchers.get(tunnelId)
    if (!set) {
      set = new Map()
      this.#watchers.set(tunnelId, set)
    }
    if (set.size >= MAX_WATCHERS) return null
    set.set(watcher, { dropped: 0 })
    return () => {
      // Once stopped, the set may be gone and another in its place: leave that one alone.
      if (!set.delete(watcher)) return
      if (set.size === 0 && this.#watchers.get(tunnelId) === set) this.#watchers.delete(tunnelId)
    }
  }

  /** Hand `call` to its tunnel's watchers. */
  publish(call: CallRecord): void {
    const set = this.#watchers.get(call.tunnelId)
    if (!set) return
    for (const [watcher, state] of set) {
      if (state.dropped > 0) {
        if (!watcher.send({ type: 'dropped', count: state.dropped })) {
          state.dropped++
          continue
        }
        state.dropped = 0
      }
      if (!watcher.send({ type: 'call', call })) state.dropped++
    }
  }

  /** Watchers of `tunnelId` now. */
  watchers(tunnelId: string): number {
    return this.#watchers.get(tunnelId)?.size ?? 0
  }
}
