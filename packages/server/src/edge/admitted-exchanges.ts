/**
 * The requests the access gate admitted that are still open, per tunnel. The gate decides when a
 * request arrives, but a GET stream or a streaming answer can stay open for hours: when a
 * tunnel's access changes (its mode or allowlist, an agent or agent token revoked) each of its
 * open exchanges is checked again as it was admitted, and those the gate would now refuse are
 * ended. Every open stream (an agent's GET, or a 2026-07-28 `subscriptions/listen`, the POST
 * that took the GET stream's place) is also checked again every `RECHECK_ALL_MS`, for what
 * changes without news to this node (an access token expiring, a grant revoked by the
 * authorization server, an event lost); a call in flight is not, so that a token expiring during
 * a long call does not cut it (the call ends, and the next request meets the gate).
 */
import type { JsonRpcBody } from '@burrow/protocol'

/** The method of a 2026-07-28 agent's stream of notifications: open for as long as the agent likes. */
const LISTEN = 'subscriptions/listen'

/**
 * Whether a request of `method` with body `rpc` (null until read) is a stream rather than a call:
 * an agent's GET, or a POST holding a `subscriptions/listen` request. Before, only GETs were, and
 * a listen stream outlived its access token and any revocation this node was not told of (found
 * by a hostile review; `test/e2e/access-listen-streams.test.ts`).
 */
export function opensStream(method: string | undefined, rpc: JsonRpcBody | null): boolean {
  if (method === 'GET') return true
  return rpc?.messages.some((m) => m.kind === 'request' && m.method === LISTEN) ?? false
}

/** Between checks of every open stream. */
export const RECHECK_ALL_MS = 30_000

interface Admitted {
  /** Whether the gate still admits it (a rejection counts as no news). */
  readonly allowed: () => Promise<boolean>
  readonly end: () => void
  /** Checked by the timer too (a stream), not only when its tunnel's access changes. */
  readonly stream: () => boolean
}

export class AdmittedExchanges {
  readonly #byTunnel = new Map<string, Set<Admitted>>()
  /** Tunnels being checked again, and whether another check was asked for meanwhile. */
  readonly #checking = new Map<string, { again: boolean; done: Promise<number> }>()
  /** The check of every open stream running, and whether another was asked for meanwhile. */
  #all: { again: boolean; done: Promise<number> } | null = null
  #size = 0
  #timer: NodeJS.Timeout | undefined

  /**
   * Note an admitted exchange of `tunnelId` until the returned call (when it closes); `stream`
   * (asked at each check: a POST is known to be one only once its body is read) for an agent's
   * stream, which the timer checks too; `stale` when the access may have changed while it was
   * being admitted (it is checked again at once).
   */
  add(
    tunnelId: string,
    allowed: () => Promise<boolean>,
    end: () => void,
    stream: boolean | (() => boolean) = false,
    stale = false,
  ): () => void {
    let set = this.#byTunnel.get(tunnelId)
    if (!set) {
      set = new Set()
      this.#byTunnel.set(tunnelId, set)
    }
    const entry: Admitted = {
      allowed,
      end,
      stream: typeof stream === 'boolean' ? () => stream : stream,
    }
    set.add(entry)
    if (stale) {
      void this.#stillAllowed(entry).then((ok) => {
        if (!ok && set.has(entry)) end()
      })
    }
    if (this.#size++ === 0) {
      this.#timer = setInterval(() => void this.recheckStreams(), RECHECK_ALL_MS)
      this.#timer.unref()
    }
    return () => {
      if (!set.delete(entry)) return
      if (set.size === 0 && this.#byTunnel.get(tunnelId) === set) this.#byTunnel.delete(tunnelId)
      if (--this.#size === 0) clearInterval(this.#timer)
    }
  }

  /**
   * Check `tunnelId`'s open exchanges again, ending those no longer admitted; how many ended.
   * Changes that come while a check runs make one more check after it, not one each.
   */
  async recheck(tunnelId: string): Promise<number> {
    const running = this.#checking.get(tunnelId)
    if (running) {
      running.again = true
      return running.done
    }
    const state = { again: false, done: Promise.resolve(0) }
    this.#checking.set(tunnelId, state)
    state.done = (async () => {
      let ended = 0
      try {
        do {
          state.again = false
          ended += await this.#check(tunnelId, false)
        } while (state.again)
      } finally {
        this.#checking.delete(tunnelId)
      }
      return ended
    })()
    return state.done
  }

  async #check(tunnelId: string, streamsOnly: boolean): Promise<number> {
    let ended = 0
    for (const entry of [...(this.#byTunnel.get(tunnelId) ?? [])]) {
      if (streamsOnly && !entry.stream()) continue
      if (await this.#stillAllowed(entry)) continue
      entry.end()
      ended++
    }
    return ended
  }

  /**
   * Check every open stream again (what the timer does); how many ended. Calls while one runs
   * make one more after it, not one each.
   */
  recheckStreams(): Promise<number> {
    if (this.#all !== null) {
      this.#all.again = true
      return this.#all.done
    }
    const all = { again: false, done: Promise.resolve(0) }
    // Noted before it starts: with nothing to check it ends at once (and forgets itself).
    this.#all = all
    all.done = (async () => {
      let ended = 0
      try {
        do {
          all.again = false
          for (const tunnelId of [...this.#byTunnel.keys()])
            ended += await this.#check(tunnelId, true)
        } while (all.again)
      } finally {
        this.#all = null
      }
      return ended
    })()
    return all.done
  }

  /** Open exchanges noted (for tests). */
  get size(): number {
    return this.#size
  }

  async #stillAllowed(entry: Admitted): Promise<boolean> {
    try {
      return await entry.allowed()
    } catch {
      return true
    }
  }
}
