// How Burrow compares with the peer tunnels of a run, for the targets that ask it to be "ahead of
// every peer measured": each peer's share is read within each round (round-ratio.ts), and Burrow
// is ahead of all of them when it is ahead of the one it compares worst with.
import type { Row } from './report.js'
import { formatRatio, roundsNote, type RoundRatio, type RunRows } from './round-ratio.js'

/** The part of a row name after its last "·", e.g. "ssh -R". */
export function label(row: Row): string {
  const i = row.name.lastIndexOf('·')
  return i === -1 ? row.name : row.name.slice(i + 1).trim()
}

/** The peer Burrow compares worst with, round by round, and Burrow's share of it. */
export interface ClosestPeer {
  readonly peer: Row
  readonly share: RoundRatio
}

/**
 * Of `peers`, the one against which Burrow's row `burrowId` has the lowest share (read within
 * each round): Burrow is ahead of every peer when it is ahead of that one. Null when no peer, or
 * Burrow, was measured.
 */
export function closestPeer(
  run: RunRows,
  burrowId: string,
  peers: readonly Row[],
): ClosestPeer | null {
  let closest: ClosestPeer | null = null
  for (const peer of peers) {
    const share = peer.id ? run.share(burrowId, peer.id) : null
    if (share !== null && (closest === null || share.value < closest.share.value)) {
      closest = { peer, share }
    }
  }
  return closest
}

/** "ahead of every peer measured": ahead of the closest one, round by round. */
export function aheadOfPeers(
  peers: readonly Row[],
  closest: ClosestPeer | null,
  show: (row: Row) => string,
): { readonly text: string; readonly met: boolean | null } {
  if (peers.length === 0) return { text: 'no peer measured', met: null }
  if (closest === null) return { text: 'Burrow not measured', met: null }
  const met = closest.share.value > 1
  return { text: `${met ? 'ahead of' : 'behind'} ${peerText(closest, show)}`, met }
}

/** "ssh -R (9,397 calls/s; Burrow 1.31× it; rounds 1.32 · 1.31 · 0.94)". */
function peerText(closest: ClosestPeer, show: (row: Row) => string): string {
  const { peer, share } = closest
  return `${label(peer)} (${show(peer)}; Burrow ${formatRatio(share.value)}× it${roundsNote(share)})`
}

/** The `bestPeer` column of a throughput target: the closest peer and Burrow's share of it. */
export function closestPeerColumn(
  closest: ClosestPeer | null,
  show: (row: Row) => string,
): { bestPeer?: string } {
  return closest ? { bestPeer: peerText(closest, show) } : {}
}
