/**
 * Password hashing, the node's dearest work per request: each sign-in and sign-up costs one
 * scrypt (tens of milliseconds and 32 MiB, on libuv's pool of four threads, which DNS lookups
 * share). The per-address limits of sign-in-guard.ts do not bound it for the node: strangers on
 * many addresses (a /48 holds 65,536 /64s) could queue hundreds of hashes, and the owner's
 * sign-in waited behind them all. Here at most `atOnce` hashes run; the rest wait in two bounded
 * lanes, browsers that signed in to the account before (their device cookie) served first; a
 * request finding its lane full is refused at once, costing nothing (docs/decisions.md,
 * "Password work under load"). Anyone can be a known browser of an account of their own, so one
 * account holds at most two of that lane's places: a stranger signing in to theirs from many
 * addresses at once no longer fills it.
 */

/** Hashes run at once: half of libuv's default pool, the rest left to DNS and files. */
export const PASSWORD_HASHES_AT_ONCE = 2
/** Waiting places for browsers the account knows (a valid device cookie). */
export const KNOWN_BROWSERS_WAITING = 64
/** Of those, the places one account's browsers hold at once. */
export const KNOWN_WAITING_PER_ACCOUNT = 2
/** Waiting places for everyone else: sign-ups and sign-ins from browsers the account never saw. */
export const OTHERS_WAITING = 16

/** Which lane a request waits in. */
export type PasswordLane = 'known' | 'other'

/** Options of `new PasswordWork` (tests make the lanes small). */
export interface PasswordWorkOptions {
  readonly atOnce?: number
  readonly knownWaiting?: number
  readonly knownWaitingPerAccount?: number
  readonly othersWaiting?: number
}

/** A bounded, two-lane gate in front of password hashing. */
export class PasswordWork {
  readonly #atOnce: number
  readonly #limits: Readonly<Record<PasswordLane, number>>
  readonly #perAccount: number
  readonly #waiting: Record<PasswordLane, (() => void)[]> = { known: [], other: [] }
  /** Known-lane places held, by account. */
  readonly #held = new Map<string, number>()
  #running = 0

  constructor(opts: PasswordWorkOptions = {}) {
    this.#atOnce = opts.atOnce ?? PASSWORD_HASHES_AT_ONCE
    this.#limits = {
      known: opts.knownWaiting ?? KNOWN_BROWSERS_WAITING,
      other: opts.othersWaiting ?? OTHERS_WAITING,
    }
    this.#perAccount = opts.knownWaitingPerAccount ?? KNOWN_WAITING_PER_ACCOUNT
  }

  /**
   * `work`'s result once a place is free (known browsers first), or null, without running it,
   * when `lane` has no waiting place left (in the known lane, none left for `account`, the
   * account whose device cookie the browser holds).
   */
  async run<T>(
    lane: PasswordLane,
    work: () => Promise<T>,
    account = '',
  ): Promise<{ value: T } | null> {
    if (this.#running < this.#atOnce) this.#running++
    else {
      const queue = this.#waiting[lane]
      if (queue.length >= this.#limits[lane]) return null
      const held = lane === 'known' ? (this.#held.get(account) ?? 0) : 0
      if (held >= this.#perAccount) return null
      if (lane === 'known') this.#held.set(account, held + 1)
      // The place is handed over by the one leaving it: `#running` already counts this one.
      await new Promise<void>((resolve) => queue.push(resolve))
      if (lane === 'known') this.#release(account)
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

  #release(account: string): void {
    const held = (this.#held.get(account) ?? 1) - 1
    if (held > 0) this.#held.set(account, held)
    else this.#held.delete(account)
  }

  #leave(): void {
    const next = this.#waiting.known.shift() ?? this.#waiting.other.shift()
    if (next) next()
    else this.#running--
  }
}
