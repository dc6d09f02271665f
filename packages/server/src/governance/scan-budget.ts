/**
 * What one tunnel's redaction patterns may cost the node. A scan is refused when it could take
 * more than `maxSteps` RE2 steps (instructions × characters: about a second at worst, far less
 * for ordinary patterns), and every scan's measured time is drawn from a bucket of
 * `msPerMinute` milliseconds refilled evenly over a minute; while the bucket is empty scans are
 * refused. A refused scan leaves its string masked whole, never unmasked.
 */

/** Options of `new ScanBudget`. */
export interface ScanBudgetOptions {
  /** Most steps one scan may take. */
  readonly maxSteps?: number
  /** Milliseconds of scanning per minute. */
  readonly msPerMinute?: number
  readonly now?: () => number
}

/** Most RE2 steps one scan may take. */
export const MAX_SCAN_STEPS = 32_000_000
/** Milliseconds of pattern scanning one tunnel may use per minute. */
export const SCAN_MS_PER_MINUTE = 3000

/** One tunnel's allowance for pattern scans. */
export class ScanBudget {
  readonly #maxSteps: number
  readonly #msPerMinute: number
  readonly #now: () => number
  #ms: number
  #at: number
  /** Scans refused so far (metrics, tests). */
  refused = 0

  constructor(opts: ScanBudgetOptions = {}) {
    this.#maxSteps = opts.maxSteps ?? MAX_SCAN_STEPS
    this.#msPerMinute = opts.msPerMinute ?? SCAN_MS_PER_MINUTE
    this.#now = opts.now ?? Date.now
    this.#ms = this.#msPerMinute
    this.#at = this.#now()
  }

  /** Whether a scan of `steps` steps may run now. */
  take(steps: number): boolean {
    const now = this.#now()
    this.#ms = Math.min(
      this.#msPerMinute,
      this.#ms + ((now - this.#at) * this.#msPerMinute) / 60_000,
    )
    this.#at = now
    if (steps > this.#maxSteps || this.#ms <= 0) {
      this.refused++
      return false
    }
    return true
  }

  /** A scan took `ms` milliseconds. */
  spent(ms: number): void {
    this.#ms -= ms
  }
}
