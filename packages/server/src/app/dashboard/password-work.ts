/**
 * Password hashing, the node's dearest work per request: each sign-in and sign-up costs one
 * scrypt (tens of milliseconds and 32 MiB, on libuv's pool of four threads, which DNS lookups
 * share). The per-address limits of sign-in-guard.ts do not bound it for the node: strangers on
 * many addresses (a /48 holds 65,536 /64s) could queue hundreds of hashes, and the owner's
 * sign-in waited behind them all. Here at most `atOnce` hashes run; the rest wait in two bounded
 * lanes, browsers that signed in to the account before (their device cookie) served first; a
 * request finding its lane full is refused at once, costing nothing (docs/decisions.md,
 * "Password work under load").
 */

/** Hashes run at once: half of libuv's default pool, the rest left to DNS and files. */
export const PASSWORD_HASHES_AT_ONCE = 2
/** Waiting places for browsers the account knows (a valid device cookie). */
export const KNOWN_BROWSERS_WAITING = 64
/** Waiting places for everyone else: sign-ups and sign-ins from browsers the account never saw. */
export const OTHERS_WAITING = 16

/** Which lane a request waits in. */
export type PasswordLane = 'known' | 'other'

/** Options of `new PasswordWork` (tests make the lanes small). */
export interface PasswordWorkOptions {
  readonly atOnce?: number
  readonly knownWaiting?: number
  readonly othersWaiting?: number
}

/** A bounded, two-lane gate in front of password hashing. */
export class PasswordWork {
  readonly #atOnce: number
  readonly #limits: Readonly<Record<PasswordLane, number>>
  readonly #waiting: Record<PasswordLane, (() => void)[]> = { known: [], other: [] }
  #running = 0

  constructor(opts: PasswordWorkOptions = {}) {
    this.#atOnce = opts.atOnce ?? PASSWORD_HASHES_AT_ONCE
    this.#limits = {
      known: opts.knownWaiting ?? KNOWN_BROWSERS_WAITING,
      other: opts.othersWaiting ?? OTHERS_WAITING,
    }
  }

  /**
   * `work`'s result once a place is free (known browsers first), or null, without running it,
   * when `lane` has no waiting place left.
   */
  async run<T>(lane: PasswordLane, work: () => Promise<T>): Promise<{ value: T } | null> {
    if (this.#running < this.#atOnce) this.#running++
    else {
      const queue = this.#waiting[lane]
      if (queue.length >= this.#limits[lane]) return null
      // The place is handed over by the one leaving it: `#running` already counts this one.
      await new Promise<void>((resolve) => queue.push(resolve))
    }
    try {
      return { value: await work() }
    } finally {
      this.#leave()
    }
  }

  /** Hashes running and waiting, for tests and metrics. */
  get load(): { running: number; known: number; other: number } {
    return {
      running: this.#running,
      known: this.#waiting.known.length,
      other: this.#waiting.other.length,
    }
  }

  #leave(): void {
    const next = this.#waiting.known.shift() ?? this.#waiting.other.shift()
    if (next) next()
    else this.#running--
  }
}
