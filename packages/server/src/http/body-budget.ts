/**
 * Bytes of request bodies held at once: per client address, per tunnel and in all, from a body's
 * first byte until its request is answered. The edge reads a POST body whole before forwarding it
 * (to count and govern it), and a stranger can send many bodies slowly, or to a tunnel whose
 * client does not read, each up to the body limit: without a bound across requests, a few hundred
 * connections to a public tunnel would hold gigabytes. A read that would pass a bound is refused
 * instead. The per-tunnel bound keeps one tunnel (say, one whose client never answers) from
 * filling the node's; the node's is a last resort, far above what one sender or one tunnel holds.
 */

/** Body bytes one client address may hold at once: sixteen bodies of the default 4 MiB. */
export const BODY_BYTES_PER_ADDRESS = 64 * 1024 * 1024
/** Body bytes one tunnel's requests may hold at once. */
export const BODY_BYTES_PER_TUNNEL = 64 * 1024 * 1024
/** Body bytes the whole node may hold at once. */
export const BODY_BYTES_PER_NODE = 2 * 1024 * 1024 * 1024

/** The bounds of `BodyBudget`. */
export interface BodyBounds {
  readonly perAddress: number
  readonly perTunnel: number
  readonly perNode: number
}

/** Who holds a body: the client's address (its rate-limit key) and the tunnel it is for. */
export interface BodyHolder {
  readonly address: string
  readonly tunnel: string
}

/** The bounds, and what is taken against them. */
export class BodyBudget {
  readonly bounds: BodyBounds
  readonly #byAddress = new Map<string, number>()
  readonly #byTunnel = new Map<string, number>()
  #total = 0

  constructor(
    bounds: BodyBounds = {
      perAddress: BODY_BYTES_PER_ADDRESS,
      perTunnel: BODY_BYTES_PER_TUNNEL,
      perNode: BODY_BYTES_PER_NODE,
    },
  ) {
    this.bounds = bounds
  }

  /** Bytes held now, in all. */
  get total(): number {
    return this.#total
  }

  /** Take `bytes` for `holder`; false, taking nothing, when a bound would be passed. */
  take(holder: BodyHolder, bytes: number): boolean {
    const address = this.#byAddress.get(holder.address) ?? 0
    const tunnel = this.#byTunnel.get(holder.tunnel) ?? 0
    if (
      address + bytes > this.bounds.perAddress ||
      tunnel + bytes > this.bounds.perTunnel ||
      this.#total + bytes > this.bounds.perNode
    ) {
      return false
    }
    this.#byAddress.set(holder.address, address + bytes)
    this.#byTunnel.set(holder.tunnel, tunnel + bytes)
    this.#total += bytes
    return true
  }

  /** Give back `bytes` that `holder` took. */
  give(holder: BodyHolder, bytes: number): void {
    if (bytes <= 0) return
    release(this.#byAddress, holder.address, bytes)
    release(this.#byTunnel, holder.tunnel, bytes)
    this.#total -= bytes
  }
}

function release(taken: Map<string, number>, key: string, bytes: number): void {
  const left = (taken.get(key) ?? 0) - bytes
  if (left > 0) taken.set(key, left)
  else taken.delete(key)
}
