// A target (or a figure for information) read from two rows of one section against each other,
// within each round (round-ratio.ts): a governance policy against none, quotas on against off,
// calls across nodes against calls on the holding node.
import { formatValue, type Row, type TargetCheck } from './report.js'
import { roundsNote, type RunRows } from './round-ratio.js'

/**
 * Two rows of one section at c=50 against each other (`a`'s calls/s over `b`'s), within each
 * round: a target when `atLeast` is given, else a figure for information.
 */
export function pairShare(
  run: RunRows,
  target: string,
  a: string,
  b: string,
  atLeast: number | null,
): TargetCheck {
  const share = run.share(a, b)
  // The two figures of the round whose ratio is the median.
  const first = run.rowOf(a, share)
  const second = run.rowOf(b, share)
  if (share === null || !first?.value || !second?.value)
    return { target, measured: 'n/a', met: null }
  const calls = (row: Row) => formatValue(row.value!, 'calls/s')
  const measured = `${share.value.toFixed(2)}× (${calls(first)} vs ${calls(second)} calls/s, c=50${roundsNote(share)})`
  return atLeast === null
    ? { target, measured, met: null, verdict: 'for information (no target)' }
    : { target, measured, met: share.value >= atLeast }
}
