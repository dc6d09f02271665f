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
  readonly now?: () => number
}

/** Most RE2 steps one search may take. */
export const MAX_SCAN_STEPS = 8_000_000
/** Most milliseconds one scan may take. */
export const MAX_SCAN_MS = 250
/** Milliseconds of pattern scanning one tunnel may use per minute. */
export const SCAN_MS_PER_MINUTE = 3000
/** Milliseconds of pattern scanning all tunnels of a node may use per minute. */
export const NODE_SCAN_MS_PER_MINUTE = 10_000

/** A scan being made: whether it has taken its time, and its end. */
export interface Scan {
  over(): boolean
  end(): void
}

/** An allowance for pattern scans: a tunnel's, or the node's. */
export class ScanBudget {
  readonly #maxSteps: number
  readonly #maxScanMs: number
  readonly #msPerMinute: number
  readonly #node: ScanBudget | null
  readonly #now: () => number
  #ms: number
  #at: number
  /** Scans refused or stopped so far (metrics, tests). */
  refused = 0

  constructor(opts: ScanBudgetOptions = {}) {
    this.#maxSteps = opts.maxSteps ?? MAX_SCAN_STEPS
    this.#maxScanMs = opts.maxScanMs ?? MAX_SCAN_MS
    this.#msPerMinute = opts.msPerMinute ?? SCAN_MS_PER_MINUTE
    this.#node = opts.node ?? null
    this.#now = opts.now ?? Date.now
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

  /** Start a scan whose one search may take `steps`; null when it may not run now. */
  start(steps: number): Scan | null {
    if (steps > this.#maxSteps || this.left <= 0 || (this.#node !== null && this.#node.left <= 0)) {
      this.refused++
      return null
    }
    const started = performance.now()
    const limit = Math.min(this.#maxScanMs, this.#ms, this.#node?.left ?? Infinity)
    return {
      over: () => {
        if (performance.now() - started <= limit) return false
        this.refused++
        return true
      },
      end: () => {
        const ms = performance.now() - started
        this.spent(ms)
        this.#node?.spent(ms)
      },
    }
  }

  /** Scanning took `ms` milliseconds. */
  spent(ms: number): void {
    this.#ms -= ms
  }
}
