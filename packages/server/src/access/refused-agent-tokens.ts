/**
 * Agent tokens a tunnel refused, remembered on this node so that a token presented again costs no
 * database read. A token is 256 random bits made by burrowd and shown only once its row is
 * written, so a secret refused once (unknown, another tunnel's, revoked) can never become valid
 * for that tunnel later, on this node or any other: a refusal never goes stale and needs no
 * expiry. Only refusals are remembered, never a valid token: a revoked one is looked up again and
 * refused at once.
 *
 * Bounded in entries (node-wide and per tunnel, so one tunnel's flood of guesses does not push out
 * what other tunnels remember), and so in memory: each entry is a fixed-size digest of the tunnel
 * and the secret, never the secret. The least recently presented refusal goes first.
 */
import { createHash } from 'node:crypto'

/** Refusals a node remembers in all. */
export const MAX_REFUSED_TOKENS = 20_000

/** Refusals a node remembers for one tunnel. */
export const MAX_REFUSED_TOKENS_PER_TUNNEL = 1_000

/** Options of `new RefusedAgentTokens`. */
export interface RefusedAgentTokensOptions {
  readonly maxEntries?: number
  readonly maxPerTunnel?: number
}

/** The refused agent tokens of every tunnel, least recently presented first. */
export class RefusedAgentTokens {
  readonly #max: number
  readonly #maxPerTunnel: number
  /** digest → tunnel, in order of use (oldest first). */
  readonly #all = new Map<string, string>()
  /** tunnel → its digests, in order of use (oldest first). */
  readonly #byTunnel = new Map<string, Set<string>>()

  constructor(opts: RefusedAgentTokensOptions = {}) {
    this.#max = Math.max(1, opts.maxEntries ?? MAX_REFUSED_TOKENS)
    this.#maxPerTunnel = Math.max(1, opts.maxPerTunnel ?? MAX_REFUSED_TOKENS_PER_TUNNEL)
  }

  /** How many refusals are remembered. */
  get size(): number {
    return this.#all.size
  }

  /** Whether `secret` was refused for `tunnelId` (and remember it as just presented). */
  has(tunnelId: string, secret: string): boolean {
    const key = digest(tunnelId, secret)
    if (!this.#all.has(key)) return false
    this.#all.delete(key)
    this.#all.set(key, tunnelId)
    const own = this.#byTunnel.get(tunnelId)
    own?.delete(key)
    own?.add(key)
    return true
  }

  /** Remember that `tunnelId` refused `secret`. */
  add(tunnelId: string, secret: string): void {
    if (this.has(tunnelId, secret)) return
    const key = digest(tunnelId, secret)
    let own = this.#byTunnel.get(tunnelId)
    if (own !== undefined && own.size >= this.#maxPerTunnel) {
      this.#forget(own.values().next().value as string)
    } else if (this.#all.size >= this.#max) {
      this.#forget(this.#all.keys().next().value as string)
    }
    own = this.#byTunnel.get(tunnelId)
    if (own === undefined) {
      own = new Set()
      this.#byTunnel.set(tunnelId, own)
    }
    own.add(key)
    this.#all.set(key, tunnelId)
  }

  #forget(key: string): void {
    const tunnelId = this.#all.get(key)
    if (tunnelId === undefined) return
    this.#all.delete(key)
    const own = this.#byTunnel.get(tunnelId)
    own?.delete(key)
    if (own?.size === 0) this.#byTunnel.delete(tunnelId)
  }
}

/** A fixed-size key for `secret` presented to `tunnelId` (the secret itself is never kept). */
function digest(tunnelId: string, secret: string): string {
  return createHash('sha256').update(tunnelId).update('\n').update(secret).digest('base64url')
}
