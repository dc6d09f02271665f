/**
 * What redaction patterns may cost the node. One search may take at most `maxSteps` RE2 steps
 * (instructions × characters: about half a second at worst with Unicode classes, far less for
 * ordinary patterns); one scan
 * stops after `maxScanMs`; and every scan's time is drawn from its tunnel's bucket of
 * `msPerMinute` milliseconds and from the node's, each refilled evenly over a minute. While either
 * is empty, scans are refused. A refused or stopped scan leaves its string masked whole, never
 * unmasked.
 */

/** Options of `new ScanBudget`. */
export interface ScanBudgetOptions {
  /** Most steps one search may take. */
  readonly maxSteps?: number
  /** Most milliseconds one scan may take (checked between its searches). */
  readonly maxScanMs?: number
  /** Milliseconds of scanning per minute. */
  readonly msPerMinute?: number
  /** The node's budget, drawn from too. */
  readonly node?: ScanBudget
  /** The clock of the minute's refill (ms). Default `Date.now`. */
  readonly now?: () => number
  /** The clock that times scans (ms, fine-grained). Default `performance.now`. */
  readonly timer?: () => number
}

/** Most RE2 steps one search may take. */
export const MAX_SCAN_STEPS = 8_000_000
/** Most milliseconds one scan may take. */
export const MAX_SCAN_MS = 250
/** Milliseconds of pattern scanning one tunnel may use per minute. */
export const SCAN_MS_PER_MINUTE = 3000
/** Milliseconds of pattern scanning all tunnels of a node may use per minute. */
export const NODE_SCAN_MS_PER_MINUTE = 10_000

/**
 * Steps of search one scan makes between two readings of the clock: about 5 ms at worst, and a
 * redaction of an ordinary message reads the clock only when it starts and ends.
 */
export const STEPS_PER_CLOCK_CHECK = 50_000
/** Steps a search is counted for besides its text's: what starting it costs, whatever its size. */
export const STEPS_PER_SEARCH = 1_000

/**
 * A scan being made: every pattern search of one redaction (a string, or all the strings and
 * keys of one JSON value), timed as one.
 */
export interface Scan {
  /** True once the scan has taken its time, or when it could not start. */
  readonly over: boolean
  /** Whether a search of at most `steps` may start now; false counts a refusal. */
  fits(steps: number): boolean
  /** A search of at most `steps` was made: true once the scan has taken its time. */
  searched(steps: number): boolean
  /** `work()`, done while the scan runs but not timed as part of it (the built-in detectors). */
  untimed<T>(work: () => T): T
  /** The scan is over: its time is drawn from the budgets. */
  end(): void
}

/** An allowance for pattern scans: a tunnel's, or the node's. */
export class ScanBudget {
  readonly #maxSteps: number
  readonly #maxScanMs: number
  readonly #msPerMinute: number
  readonly #node: ScanBudget | null
  readonly #now: () => number
  readonly #timer: () => number
  #ms: number
  #at: number
  /** Searches refused, and scans stopped, so far (metrics, tests). */
  refused = 0

  constructor(opts: ScanBudgetOptions = {}) {
    this.#maxSteps = opts.maxSteps ?? MAX_SCAN_STEPS
    this.#maxScanMs = opts.maxScanMs ?? MAX_SCAN_MS
    this.#msPerMinute = opts.msPerMinute ?? SCAN_MS_PER_MINUTE
    this.#node = opts.node ?? null
    this.#now = opts.now ?? Date.now
    this.#timer = opts.timer ?? (() => performance.now())
    this.#ms = this.#msPerMinute
    this.#at = this.#now()
  }

  /** Most steps one search may take. */
  get maxSteps(): number {
    return this.#maxSteps
  }

  /** Milliseconds left now (negative: overdrawn by the last scan). */
  get left(): number {
    const now = this.#now()
    this.#ms = Math.min(
      this.#msPerMinute,
      this.#ms + ((now - this.#at) * this.#msPerMinute) / 60_000,
    )
    this.#at = now
    return this.#ms
  }

  /**
   * Start a scan. While this budget or the node's is empty, the scan fits no search. It may take
   * at most one scan's time, and no more than either budget holds.
   */
  start(): Scan {
    const left = this.left
    const nodeLeft = this.#node?.left ?? Infinity
    if (left <= 0 || nodeLeft <= 0) return this.#refusing()
    let started = this.#timer()
    const limit = Math.min(this.#maxScanMs, left, nodeLeft)
    let unchecked = 0
    let over = false
    return {
      get over() {
        return over
      },
      fits: (steps) => {
        if (!over && steps <= this.#maxSteps) return true
        this.refused++
        return false
      },
      searched: (steps) => {
        if (over) return true
        unchecked += steps + STEPS_PER_SEARCH
        if (unchecked < STEPS_PER_CLOCK_CHECK) return false
        unchecked = 0
        if (this.#timer() - started <= limit) return false
        this.refused++
        over = true
        return true
      },
      untimed: (work) => {
        const from = this.#timer()
        try {
          return work()
        } finally {
          started += this.#timer() - from
        }
      },
      end: () => {
        const ms = this.#timer() - started
        this.spent(ms)
        this.#node?.spent(ms)
      },
    }
  }

  #refusing(): Scan {
    return {
      over: true,
      fits: () => {
        this.refused++
        return false
      },
      searched: () => true,
      untimed: (work) => work(),
      end: () => {},
    }
  }

  /** Scanning took `ms` milliseconds. */
  spent(ms: number): void {
    this.#ms -= ms
  }
}
