/**
 * Response bytes on their way to the usage counters, gathered per tunnel rather than per
 * response: a tunnel's responses fill one batch together, sent once it holds
 * `RESPONSE_BATCH_BYTES`, when one of its responses ends, or at the latest `RESPONSE_WAIT_MS`
 * after its first byte. So what the counters have not seen yet is at most one batch and one wait
 * per tunnel, however many responses it holds open. Before, each response kept its own batch
 * until it reached 1 MiB or ended: forty answers held open with a little less each moved 40 MiB
 * that no counter saw and nothing cut, on a tunnel past its limit, and a slow GET stream's bytes
 * were counted at its end, hours later, in another month, or never when the node stopped first
 * (found by a hostile review).
 */
import type { PlanId } from '../plans.js'

/** Response bytes wait for this many of their tunnel's (and plan's) before they are counted. */
export const RESPONSE_BATCH_BYTES = 1024 * 1024
/** At most this long (ms) does a response byte wait to be counted. */
export const RESPONSE_WAIT_MS = 1000

/** What a batch is counted for: a tunnel, its account, and the plan its responses were admitted under. */
export interface BatchedTunnel {
  readonly id: string
  readonly accountId: string
  readonly plan: PlanId
}

/** Gathers response bytes per tunnel and plan, and hands each batch to `send`. */
export class ResponseBatches<T extends BatchedTunnel> {
  readonly #send: (tunnel: T, n: number) => void
  /** Bytes not yet sent, by tunnel and plan (a plan's limit decides its warnings and cuts). */
  readonly #waiting = new Map<string, { readonly tunnel: T; n: number }>()
  #timer: NodeJS.Timeout | null = null

  constructor(send: (tunnel: T, n: number) => void) {
    this.#send = send
  }

  /** Add `n` bytes of a response of `tunnel`; sent at once when they fill its batch. */
  add(tunnel: T, n: number): void {
    if (n <= 0) return
    const key = keyOf(tunnel)
    const waiting = this.#waiting.get(key)
    const total = (waiting?.n ?? 0) + n
    if (total >= RESPONSE_BATCH_BYTES) {
      this.#waiting.delete(key)
      this.#send(waiting?.tunnel ?? tunnel, total)
      return
    }
    if (waiting !== undefined) waiting.n = total
    else this.#waiting.set(key, { tunnel, n: total })
    if (this.#timer === null) {
      this.#timer = setTimeout(() => {
        this.#timer = null
        this.sendAll()
      }, RESPONSE_WAIT_MS)
      this.#timer.unref()
    }
  }

  /** Send what waits of `tunnel` (one of its responses ended). */
  sendOf(tunnel: T): void {
    const key = keyOf(tunnel)
    const waiting = this.#waiting.get(key)
    if (waiting === undefined) return
    this.#waiting.delete(key)
    this.#send(waiting.tunnel, waiting.n)
  }

  /** Send everything that waits. */
  sendAll(): void {
    if (this.#timer !== null) clearTimeout(this.#timer)
    this.#timer = null
    const all = [...this.#waiting.values()]
    this.#waiting.clear()
    for (const { tunnel, n } of all) this.#send(tunnel, n)
  }

  /** Stop: forget what waits and its timer; the bytes forgotten. */
  discard(): number {
    const n = this.waitingBytes
    if (this.#timer !== null) clearTimeout(this.#timer)
    this.#timer = null
    this.#waiting.clear()
    return n
  }

  /** Bytes waiting (tests). */
  get waitingBytes(): number {
    let n = 0
    for (const waiting of this.#waiting.values()) n += waiting.n
    return n
  }
}

function keyOf(tunnel: BatchedTunnel): string {
  return `${tunnel.id} ${tunnel.plan}`
}
