// Rows of a section measured in several rounds (`BENCH_ROUNDS`), made into one set: for each row
// the round whose value is the median, whole (its latency, CPU and baseline come from that same
// cell), with every round's value in its note. A row that could not run in some round is taken
// from the rounds that measured it.
import { formatValue, type Row } from './report.js'

/** One row per id of `rounds[0]`, each the median round's; rows without an id from round one. */
export function medianRows(rounds: readonly (readonly Row[])[]): Row[] {
  const first = rounds[0] ?? []
  if (rounds.length < 2) return [...first]
  return first.map((row) => {
    if (row.id === undefined) return row
    const measured = rounds
      .map((round) => round.find((r) => r.id === row.id))
      .filter((r): r is Row => r !== undefined && r.value !== null)
    if (measured.length === 0) return row
    const sorted = [...measured].sort((a, b) => a.value! - b.value!)
    // Of an even count, the lower of the two middle rounds.
    const median = sorted[Math.floor((sorted.length - 1) / 2)]!
    const values = measured.map((r) => formatValue(r.value!, r.unit)).join(' · ')
    const note = `median of ${measured.length} rounds (${values} ${row.unit})`
    return { ...median, note: median.note ? `${note}; ${median.note}` : note }
  })
}
