/**
 * Bytes of answer copies held at once: per tunnel and in all. The edge keeps a copy of an
 * answer's messages as they pass (a JSON body until it ends, up to 16 MiB; the SSE event being
 * read, up to 4 Mi characters) to tap them for call history and rug-pull pins, and to rewrite
 * them when the policy asks. The tunnel client decides how large an answer is and when it ends,
 * and a stranger who reads slowly keeps a legitimate server's answers from ending: without a
 * bound across answers, a few dozen answers that never end would hold gigabytes. Past a bound, a
 * copy that only taps stops (the answer still streams to the agent, untouched), and one that must
 * rewrite fails closed (`relay-response.ts`). The per-tunnel bound keeps one tunnel from filling
 * the node's; the node's is a last resort.
 */
import type { HeldCopies } from '@burrow/protocol'

/** Answer-copy bytes one tunnel's answers may hold at once. */
export const ANSWER_COPY_BYTES_PER_TUNNEL = 64 * 1024 * 1024
/** Answer-copy bytes the whole node may hold at once. */
export const ANSWER_COPY_BYTES_PER_NODE = 512 * 1024 * 1024

/** The bounds of `AnswerBudget`. */
export interface AnswerBounds {
  readonly perTunnel: number
  readonly perNode: number
}

/** The bounds, and what answers' copies hold against them. */
export class AnswerBudget {
  readonly bounds: AnswerBounds
  readonly #byTunnel = new Map<string, number>()
  #total = 0

  constructor(
    bounds: AnswerBounds = {
      perTunnel: ANSWER_COPY_BYTES_PER_TUNNEL,
      perNode: ANSWER_COPY_BYTES_PER_NODE,
    },
  ) {
    this.bounds = bounds
  }

  /** Bytes held now, in all. */
  get total(): number {
    return this.#total
  }

  /** Bytes held now by `tunnel`'s answers. */
  heldBy(tunnel: string): number {
    return this.#byTunnel.get(tunnel) ?? 0
  }

  /** Take `bytes` for `tunnel`; false, taking nothing, when a bound would be passed. */
  take(tunnel: string, bytes: number): boolean {
    const held = this.heldBy(tunnel)
    if (held + bytes > this.bounds.perTunnel || this.#total + bytes > this.bounds.perNode) {
      return false
    }
    this.#byTunnel.set(tunnel, held + bytes)
    this.#total += bytes
    return true
  }

  /** Give back `bytes` that `tunnel` took. */
  give(tunnel: string, bytes: number): void {
    if (bytes <= 0) return
    const left = this.heldBy(tunnel) - bytes
    if (left > 0) this.#byTunnel.set(tunnel, left)
    else this.#byTunnel.delete(tunnel)
    this.#total -= bytes
  }

  /** What one tunnel's answers take and give, for `ResponseMessages`. */
  for(tunnel: string): HeldCopies {
    return {
      take: (bytes) => this.take(tunnel, bytes),
      give: (bytes) => this.give(tunnel, bytes),
    }
  }
}
