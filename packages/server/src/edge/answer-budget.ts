/**
 * Bytes of answer copies held at once: per client address, per tunnel and in all. The edge keeps a copy of an
 * answer's messages as they pass (a JSON body until it ends, up to 16 MiB; the SSE event being
 * read, up to 4 Mi characters) to tap them for call history and rug-pull pins, and to rewrite
 * them when the policy asks. The tunnel client decides how large an answer is and when it ends,
 * and a stranger who reads slowly keeps a legitimate server's answers from ending: without a
 * bound across answers, a few dozen answers that never end would hold gigabytes. Past a bound, a
 * copy that only taps stops (the answer still streams to the agent, untouched), and one that must
 * rewrite fails closed (`relay-response.ts`). The per-address bound (counted per tunnel: its
 * client decides how large answers are) keeps one reader from taking a tunnel's whole share, the
 * per-tunnel bound keeps one tunnel from filling the node's, and the node's is a last resort.
 *
 * Copies that only tap may hold half of a tunnel's share and half of the node's. A slow reader
 * holds a tapped copy for as long as it reads slowly, while a copy being rewritten is read whole
 * from the tunnel before anything is sent, and given back then: so however many addresses an
 * attacker reads slowly from, the other half stays for the answers the policy must rewrite
 * (filtered `tools/list`, redacted answers), which fail closed without it.
 */
import type { HeldCopies } from '@burrow/protocol'
import { HeldBytes, type ByteHolder, type HeldBytesBounds } from '../http/held-bytes.js'

/** Answer-copy bytes one client address's calls may hold at once: two of the largest answers. */
export const ANSWER_COPY_BYTES_PER_ADDRESS = 32 * 1024 * 1024
/** Answer-copy bytes one tunnel's answers may hold at once. */
export const ANSWER_COPY_BYTES_PER_TUNNEL = 64 * 1024 * 1024
/** Answer-copy bytes the whole node may hold at once. */
export const ANSWER_COPY_BYTES_PER_NODE = 512 * 1024 * 1024

/** The bounds, and what answers' copies hold against them. */
export class AnswerBudget extends HeldBytes {
  /** What copies that only tap hold, within half of the tunnel's and the node's bounds. */
  readonly #taps: HeldBytes

  constructor(
    bounds: HeldBytesBounds = {
      perAddress: ANSWER_COPY_BYTES_PER_ADDRESS,
      perTunnel: ANSWER_COPY_BYTES_PER_TUNNEL,
      perNode: ANSWER_COPY_BYTES_PER_NODE,
    },
  ) {
    super(bounds)
    this.#taps = new HeldBytes({
      perAddress: bounds.perAddress,
      perTunnel: Math.floor(bounds.perTunnel / 2),
      perNode: Math.floor(bounds.perNode / 2),
    })
  }

  /**
   * What the answers of `holder`'s calls take and give, for `ResponseMessages`. The tunnel, not
   * the caller, decides how large its answers are: an address's share is counted per tunnel, so
   * that one tunnel's answers cannot spend what an agent's calls to other tunnels may hold.
   * `rewriting`: the copy is of an answer the policy rewrites; one that only taps gets half.
   */
  for(holder: ByteHolder, rewriting = true): HeldCopies {
    const counted = { address: `${holder.tunnel}|${holder.address}`, tunnel: holder.tunnel }
    if (rewriting) {
      return {
        take: (bytes) => this.take(counted, bytes),
        give: (bytes) => this.give(counted, bytes),
      }
    }
    return {
      take: (bytes) => {
        if (!this.#taps.take(counted, bytes)) return false
        if (this.take(counted, bytes)) return true
        this.#taps.give(counted, bytes)
        return false
      },
      give: (bytes) => {
        this.#taps.give(counted, bytes)
        this.give(counted, bytes)
      },
    }
  }
}
