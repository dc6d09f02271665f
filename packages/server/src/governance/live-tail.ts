/**
 * The live tail of the Traffic tab: every call recorded for a tunnel is handed at once to the
 * pages watching it (server-sent events from burrowd to the page). Bounded: a few watchers per
 * tunnel, and a watcher that falls behind loses calls (it is told how many) rather than making
 * burrowd hold them. Per node: with several nodes a page sees the calls that arrive at the node
 * serving it. Bodies go out only once the tunnel's stored policy, read after the call was recorded,
 * is not zero-knowledge: the call was recorded under the node's cached policy, which may not
 * know yet that the owner turned the mode on (on another node, its event in flight or lost).
 * One read per tunnel at a time, and only while pages watch it; the calls recorded meanwhile wait
 * for the next read, bounded.
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

/** Calls of a tunnel waiting for its policy to be read; past that, watchers lose them. */
export const MAX_AWAITING = 256

/** Whether `tunnelId`'s stored policy lets bodies be shown now (a rejection: no). */
export type ContentShown = (tunnelId: string) => Promise<boolean>

/** A tunnel's calls waiting for the read of its policy under way, and those for the next. */
interface Awaiting {
  readonly next: CallRecord[]
}

/** Live tails of every tunnel. */
export class LiveTail {
  readonly #watchers = new Map<string, Map<TailWatcher, { dropped: number }>>()
  readonly #contentShown: ContentShown | null
  /** Tunnels whose policy is being read, with the calls recorded since the read began. */
  readonly #awaiting = new Map<string, Awaiting>()

  /** Without `contentShown`, calls go out as recorded (for tests of the watchers alone). */
  constructor(contentShown: ContentShown | null = null) {
    this.#contentShown = contentShown
  }

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

  /** Hand `call` to its tunnel's watchers: at once if it has no body to check, in order. */
  publish(call: CallRecord): void {
    if (!this.#watchers.has(call.tunnelId)) return
    const awaiting = this.#awaiting.get(call.tunnelId)
    if (awaiting !== undefined) {
      if (awaiting.next.length < MAX_AWAITING) awaiting.next.push(call)
      else this.#lose(call.tunnelId)
    } else if (this.#contentShown === null || !hasBodies(call)) this.#deliver(call)
    else this.#check(call.tunnelId, [call])
  }

  /** Read the tunnel's policy, then hand out `calls`, recorded before the read began. */
  #check(tunnelId: string, calls: CallRecord[]): void {
    const awaiting: Awaiting = { next: [] }
    this.#awaiting.set(tunnelId, awaiting)
    const read = this.#contentShown?.(tunnelId) ?? Promise.resolve(true)
    void read
      .catch(() => false)
      .then((shown) => {
        for (const call of calls) this.#deliver(shown ? call : withoutBodies(call))
        if (awaiting.next.some(hasBodies)) this.#check(tunnelId, awaiting.next)
        else {
          this.#awaiting.delete(tunnelId)
          for (const call of awaiting.next) this.#deliver(call)
        }
      })
  }

  /** Each watcher of the tunnel loses a call. */
  #lose(tunnelId: string): void {
    for (const state of this.#watchers.get(tunnelId)?.values() ?? []) state.dropped++
  }

  #deliver(call: CallRecord): void {
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

function hasBodies(call: CallRecord): boolean {
  return (call.requestBody ?? null) !== null || (call.responseBody ?? null) !== null
}

function withoutBodies(call: CallRecord): CallRecord {
  return { ...call, requestBody: null, responseBody: null }
}
