/**
 * Whose lookup takes a free lookup place next (system-resolve.ts): the places are shared by
 * every account's webhook receivers and by strangers' OAuth client documents, and a name whose
 * nameservers never answer holds its place for the resolver's whole timeout. First come first
 * served let one account's names, asked for in a row, take every place and keep them, turn
 * after turn, while everyone else's lookups waited out their turn. Turns are taken instead:
 *
 * - round-robin over those waiting (`who`: an account, or an OAuth client document's domain),
 *   each one's own lookups in order; one already holding a place is passed over while another
 *   that holds none waits, so nobody holds a second place while someone else waits for a first;
 * - one whose lookup timed out is slow for `SLOW_FOR_MS`: it is served only when nobody else
 *   waits, and holds at most one place even then. Timed out: the resolver gave up (its own
 *   timeout, which starts when a pool thread runs the lookup), or the lookup answered after
 *   `SLOW_LOOKUP_MS` of its own (`#answeredSlowly`): a lookup waits for a thread of libuv's pool,
 *   which files and crypto share, and a wait there is not the asker's names.
 *
 * A slow mark that runs out while its asker waits next to a free place wakes the queue (a timer,
 * unref'd). A lookup that throws gives its place back and the next is served.
 *
 * So a slow one holds one place at most, and a lookup of anyone else waits at most for the
 * lookups running when it came that are not slow (fresh names, each given one turn) to end.
 */

/** A lookup that spent this long of its own (not waiting for the pool) timed out, whatever the answer. */
export const SLOW_LOOKUP_MS = 2_000

/** How long an asker whose lookup timed out stays slow. */
export const SLOW_FOR_MS = 10 * 60_000

/** Askers remembered as slow (or once slow to answer) at most; past it the oldest are forgotten. */
export const SLOW_REMEMBERED = 10_000

/** Lookups remembered as ended (when they began and ended), for `#answeredSlowly`. */
const ENDS_REMEMBERED = 1_000

/** Error codes of a lookup the resolver gave up waiting for (getaddrinfo, c-ares). */
const TIMED_OUT_CODES = new Set(['EAI_AGAIN', 'ETIMEOUT', 'ETIMEDOUT'])

/** Whether `error` says the resolver got no answer in time. */
export function timedOut(error: NodeJS.ErrnoException | null): boolean {
  return error !== null && error.code !== undefined && TIMED_OUT_CODES.has(error.code)
}

/** Free places given to waiting lookups, fairly; the caller runs what `take` returns. */
export class LookupTurns {
  readonly #atOnce: number
  readonly #now: () => number
  #running = 0
  readonly #runningBy = new Map<string, number>()
  /** Waiting lookups by asker; the Map's order is the round-robin order. */
  readonly #waiting = new Map<string, (() => void)[]>()
  /** Askers whose lookups timed out, until when they are slow, oldest mark first. */
  readonly #slowUntil = new Map<string, number>()
  /** Askers whose last lookup answered slowly without proof it was theirs: when it ended. */
  readonly #slowAnswerAt = new Map<string, number>()
  /**
   * Ended lookups in the order they ended: when, and the latest start of any lookup ended by
   * then (so a search by end time tells whether one began after a given time).
   */
  readonly #ends: { readonly at: number; readonly latestStart: number }[] = []
  /** Wakes the queue when a waiting slow asker's mark runs out next to a free place. */
  #wake: ReturnType<typeof setTimeout> | undefined

  constructor(atOnce: number, now: () => number = Date.now) {
    this.#atOnce = atOnce
    this.#now = now
  }

  /** Whether `who` is slow now (a lookup of theirs timed out in the last `SLOW_FOR_MS`). */
  isSlow(who: string): boolean {
    const until = this.#slowUntil.get(who)
    if (until === undefined) return false
    if (until > this.#now()) return true
    this.#slowUntil.delete(who)
    return false
  }

  /** How many askers are remembered as slow or once slow to answer (bounded, for tests). */
  remembered(): number {
    return this.#slowUntil.size + this.#slowAnswerAt.size
  }

  /** Queue `go` for `who`; it is called when given a place. Returns a way to leave the queue. */
  ask(who: string, go: () => void): () => void {
    const queue = this.#waiting.get(who)
    if (queue === undefined) this.#waiting.set(who, [go])
    else queue.push(go)
    this.#fill()
    return () => {
      const mine = this.#waiting.get(who)
      const at = mine?.indexOf(go) ?? -1
      if (mine === undefined || at < 0) return
      mine.splice(at, 1)
      if (mine.length === 0) this.#waiting.delete(who)
    }
  }

  /**
   * A lookup of `who` given its place at `startedAt` (this clock) ended (`error` is its
   * failure): the place is given to the next in turn.
   */
  done(who: string, startedAt: number, error: NodeJS.ErrnoException | null): void {
    this.#release(who)
    const now = this.#now()
    if (timedOut(error) || this.#answeredSlowly(who, startedAt, now)) this.#markSlow(who)
    this.#ended(startedAt, now)
    this.#fill()
  }

  /**
   * Whether a lookup of `who` begun at `startedAt` and ended `now` spent `SLOW_LOOKUP_MS` of its
   * own. Its time may have been spent waiting for a pool thread, which says nothing of its
   * names; the pool takes lookups in the order they were made, so it was not waiting when a
   * lookup made after it had ended: `SLOW_LOOKUP_MS` or more before it ended proves the time
   * its own. Without such proof (nothing else ran, or everything was slow), it proves so when
   * it is the second of the asker's in a row: begun after its last slow one ended (within
   * `SLOW_FOR_MS`), with no quick one between.
   */
  #answeredSlowly(who: string, startedAt: number, now: number): boolean {
    const last = this.#slowAnswerAt.get(who)
    if (now - startedAt < SLOW_LOOKUP_MS) {
      this.#slowAnswerAt.delete(who)
      return false
    }
    if (this.#begunAfterEndedBy(startedAt, now - SLOW_LOOKUP_MS)) return true
    if (last !== undefined && last <= startedAt && now - last < SLOW_FOR_MS) return true
    if (last === undefined || last > startedAt || now - last >= SLOW_FOR_MS) {
      remember(this.#slowAnswerAt, who, now)
    }
    return false
  }

  /** Whether a lookup begun at `since` or later had ended by `by`. */
  #begunAfterEndedBy(since: number, by: number): boolean {
    const ends = this.#ends
    let low = 0
    let high = ends.length // the first ended after `by`
    while (low < high) {
      const mid = (low + high) >> 1
      if (ends[mid]!.at <= by) low = mid + 1
      else high = mid
    }
    return low > 0 && ends[low - 1]!.latestStart >= since
  }

  #ended(startedAt: number, now: number): void {
    const latest = Math.max(startedAt, this.#ends.at(-1)?.latestStart ?? -Infinity)
    this.#ends.push({ at: now, latestStart: latest })
    // No lookup holds its place for SLOW_FOR_MS; older ends prove nothing any more.
    let old = 0
    while (old < this.#ends.length && this.#ends[old]!.at <= now - SLOW_FOR_MS) old++
    this.#ends.splice(0, Math.max(old, this.#ends.length - ENDS_REMEMBERED))
  }

  #markSlow(who: string): void {
    this.#slowAnswerAt.delete(who)
    remember(this.#slowUntil, who, this.#now() + SLOW_FOR_MS)
  }

  /**
   * Give free places to waiting lookups while there is one to give them to. A lookup that
   * throws gives its place back at once (its caller fails it) and the next is served; when only
   * slow askers already holding a place wait next to a free place, the queue is woken when the
   * first of their marks runs out, else nothing would until a lookup ended or another was asked.
   */
  #fill(): void {
    clearTimeout(this.#wake)
    this.#wake = undefined
    while (this.#running < this.#atOnce) {
      const who = this.#next()
      if (who === undefined) {
        this.#wakeAtExpiry()
        return
      }
      const queue = this.#waiting.get(who)!
      const go = queue.shift()!
      // Served: to the back of the round, or out of it when nothing of theirs is left.
      this.#waiting.delete(who)
      if (queue.length > 0) this.#waiting.set(who, queue)
      this.#running++
      this.#runningBy.set(who, (this.#runningBy.get(who) ?? 0) + 1)
      try {
        go()
      } catch {
        this.#release(who)
      }
    }
  }

  #release(who: string): void {
    this.#running--
    const left = (this.#runningBy.get(who) ?? 1) - 1
    if (left > 0) this.#runningBy.set(who, left)
    else this.#runningBy.delete(who)
  }

  /** Call `#fill` when the earliest slow mark of those waiting runs out (unref'd: never keeps burrowd up). */
  #wakeAtExpiry(): void {
    let earliest = Infinity
    for (const who of this.#waiting.keys()) {
      earliest = Math.min(earliest, this.#slowUntil.get(who) ?? Infinity)
    }
    if (earliest === Infinity) return
    this.#wake = setTimeout(() => this.#fill(), Math.max(0, earliest - this.#now()))
    this.#wake.unref?.()
  }

  /**
   * Who is served next: the first in the round that is not slow and holds no place, else the
   * first that is not slow, else the first slow one holding no place; none when only slow ones
   * already holding a place wait.
   */
  #next(): string | undefined {
    let notSlow: string | undefined
    let slowIdle: string | undefined
    for (const who of this.#waiting.keys()) {
      const idle = !this.#runningBy.has(who)
      if (this.isSlow(who)) {
        if (idle) slowIdle ??= who
        continue
      }
      if (idle) return who
      notSlow ??= who
    }
    return notSlow ?? slowIdle
  }
}

/** Set `key` to `value` as the newest entry of `map`, forgetting the oldest past the bound. */
function remember(map: Map<string, number>, key: string, value: number): void {
  map.delete(key)
  map.set(key, value)
  for (const [oldest] of map) {
    if (map.size <= SLOW_REMEMBERED) break
    map.delete(oldest)
  }
}
