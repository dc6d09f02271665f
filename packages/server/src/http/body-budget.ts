/**
 * Bytes of request bodies held at once, per client address and in all: from the first byte read
 * until the request is answered. The edge reads a POST body whole before forwarding it (to count
 * and govern it), and a stranger can send many bodies slowly, or to a tunnel whose client does
 * not read, each up to the body limit: without a bound across requests, a few hundred
 * connections to a public tunnel would hold gigabytes. A read that would pass either bound is
 * refused instead.
 */

/** Body bytes one client address may hold at once: sixteen bodies of the default 4 MiB. */
export const BODY_BYTES_PER_ADDRESS = 64 * 1024 * 1024
/** Body bytes the whole node may hold at once. */
export const BODY_BYTES_PER_NODE = 512 * 1024 * 1024

/** The bounds, and what is taken against them. */
export class BodyBudget {
  readonly perAddress: number
  readonly perNode: number
  readonly #taken = new Map<string, number>()
  #total = 0

  constructor(perAddress = BODY_BYTES_PER_ADDRESS, perNode = BODY_BYTES_PER_NODE) {
    this.perAddress = perAddress
    this.perNode = perNode
  }

  /** Bytes held now, in all. */
  get total(): number {
    return this.#total
  }

  /** Take `bytes` for `address`; false, taking nothing, when either bound would be passed. */
  take(address: string, bytes: number): boolean {
    const mine = this.#taken.get(address) ?? 0
    if (mine + bytes > this.perAddress || this.#total + bytes > this.perNode) return false
    this.#taken.set(address, mine + bytes)
    this.#total += bytes
    return true
  }

  /** Give back `bytes` that `address` took. */
  give(address: string, bytes: number): void {
    if (bytes <= 0) return
    const left = (this.#taken.get(address) ?? 0) - bytes
    if (left > 0) this.#taken.set(address, left)
    else this.#taken.delete(address)
    this.#total -= bytes
  }
}
