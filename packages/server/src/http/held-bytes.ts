/**
 * Bytes held at once against three bounds: per client address, per tunnel and in all. What a
 * stranger can make the edge hold (request bodies being read, copies of answers being tapped) is
 * counted here, so that no sender and no tunnel can fill the node, and no sender a tunnel.
 */

/** The bounds of `HeldBytes`. */
export interface HeldBytesBounds {
  readonly perAddress: number
  readonly perTunnel: number
  readonly perNode: number
}

/** Who holds bytes: the client's address (its rate-limit key) and the tunnel it calls. */
export interface ByteHolder {
  readonly address: string
  readonly tunnel: string
}

/** The bounds, and what is taken against them. */
export class HeldBytes {
  readonly bounds: HeldBytesBounds
  readonly #byAddress = new Map<string, number>()
  readonly #byTunnel = new Map<string, number>()
  #total = 0

  constructor(bounds: HeldBytesBounds) {
    this.bounds = bounds
  }

  /** Bytes held now, in all. */
  get total(): number {
    return this.#total
  }

  /** Bytes held now for calls of `tunnel`. */
  heldByTunnel(tunnel: string): number {
    return this.#byTunnel.get(tunnel) ?? 0
  }

  /** Bytes held now for calls from `address`. */
  heldByAddress(address: string): number {
    return this.#byAddress.get(address) ?? 0
  }

  /** Take `bytes` for `holder`; false, taking nothing, when a bound would be passed. */
  take(holder: ByteHolder, bytes: number): boolean {
    const address = this.heldByAddress(holder.address)
    const tunnel = this.heldByTunnel(holder.tunnel)
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
  give(holder: ByteHolder, bytes: number): void {
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
