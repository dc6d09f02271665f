/**
 * The restart rules of stdio servers (docs/decisions.md, The stdio bridge) as plain arithmetic,
 * apart from processes and timers: exponential backoff from 500 ms to 10 s, a child that lived 2 s
 * counts as healthy and resets the backoff, and runs of quick exits are counted so the supervisor
 * can print its crash hint.
 */

/** Timings of the supervision rules. */
export interface RestartTiming {
  /** Delay before the first restart after a healthy run. */
  readonly initialBackoffMs: number
  /** Ceiling of the doubling delay. */
  readonly maxBackoffMs: number
  /** A child that ran at least this long was healthy. */
  readonly stableAfterMs: number
  /** Consecutive quick exits (or spawn failures) that trigger the crash hint. */
  readonly crashHintAfter: number
}

/** The documented rules: 500 ms → 10 s, healthy after 2 s, a hint after 3 consecutive failures. */
export const DEFAULT_RESTART_TIMING: RestartTiming = Object.freeze({
  initialBackoffMs: 500,
  maxBackoffMs: 10_000,
  stableAfterMs: 2_000,
  crashHintAfter: 3,
})

/** What to do after one exit. */
export interface RestartDecision {
  /** Wait this long before spawning again. */
  readonly delayMs: number
  /** Quick exits in a row so far, this one included (0 after a healthy run). */
  readonly consecutiveCrashes: number
}

/** Tracks backoff and the run of quick exits of one supervised command. */
export class RestartPolicy {
  readonly #timing: RestartTiming
  #nextDelayMs: number
  #crashes = 0

  constructor(timing: RestartTiming = DEFAULT_RESTART_TIMING) {
    this.#timing = timing
    this.#nextDelayMs = timing.initialBackoffMs
  }

  /**
   * Record that the child ended after `runtimeMs` (0 for a spawn failure) and decide the delay
   * before the next attempt.
   */
  onExit(runtimeMs: number): RestartDecision {
    const { initialBackoffMs, maxBackoffMs, stableAfterMs } = this.#timing
    if (runtimeMs >= stableAfterMs) {
      // A healthy run: whatever ended it, the next failure starts a fresh streak.
      this.#crashes = 0
      this.#nextDelayMs = initialBackoffMs
    } else {
      this.#crashes += 1
    }
    const delayMs = this.#nextDelayMs
    this.#nextDelayMs = Math.min(this.#nextDelayMs * 2, maxBackoffMs)
    return { delayMs, consecutiveCrashes: this.#crashes }
  }
}
