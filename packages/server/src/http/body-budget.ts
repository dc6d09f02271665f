/**
 * Bytes of request bodies held at once: per client address, per tunnel and in all, from a body's
 * first byte until its request is answered. The edge reads a POST body whole before forwarding it
 * (to count and govern it), and a stranger can send many bodies slowly, or to a tunnel whose
 * client does not read, each up to the body limit: without a bound across requests, a few hundred
 * connections to a public tunnel would hold gigabytes. A read that would pass a bound is refused
 * instead. The per-tunnel bound keeps one tunnel (say, one whose client never answers) from
 * filling the node's; the node's is a last resort, far above what one sender or one tunnel holds.
 */
import { HeldBytes, type ByteHolder, type HeldBytesBounds } from './held-bytes.js'

/** Body bytes one client address may hold at once: sixteen bodies of the default 4 MiB. */
export const BODY_BYTES_PER_ADDRESS = 64 * 1024 * 1024
/** Body bytes one tunnel's requests may hold at once. */
export const BODY_BYTES_PER_TUNNEL = 64 * 1024 * 1024
/** Body bytes the whole node may hold at once. */
export const BODY_BYTES_PER_NODE = 2 * 1024 * 1024 * 1024

/** The bounds of `BodyBudget`. */
export type BodyBounds = HeldBytesBounds

/** Who holds a body: the client's address (its rate-limit key) and the tunnel it is for. */
export type BodyHolder = ByteHolder

/** The bounds, and what bodies hold against them. */
export class BodyBudget extends HeldBytes {
  constructor(
    bounds: BodyBounds = {
      perAddress: BODY_BYTES_PER_ADDRESS,
      perTunnel: BODY_BYTES_PER_TUNNEL,
      perNode: BODY_BYTES_PER_NODE,
    },
  ) {
    super(bounds)
  }
}
