// Ratios of two cells measured in the same round. With `BENCH_ROUNDS=n`, every row of the results
// is the median round's (median-rows.ts), and two median rows may come from different rounds: on
// a VM whose speed wanders by a fifth from minute to minute, Burrow's median round and the
// floor's can differ by more than the margin a target is read against. A target that compares
// two cells (Burrow with the floor, with direct, with a peer, with itself at another concurrency)
// therefore takes the ratio within each round, where both cells ran only minutes apart, and reads the
// median of those ratios, as each row's own "vs baseline" column does.
import type { Row } from './report.js'

/** A row by id among some rows, when it was measured. */
export type RowLookup = (id: string) => Row | undefined

/** The rows of one set by id: the first one with that id that has a value. */
export function lookup(rows: readonly Row[]): RowLookup {
  return (id) => rows.find((r) => r.id === id && r.value !== null)
}

/** A ratio read from a run. */
export interface RoundRatio {
  /**
   * The median of the rounds' ratios (of an even count, the lower middle one, as median rows
   * are chosen), or the one ratio. Infinity when the baseline measured nothing to compare with
   * (a floor that added no latency) and Burrow did.
   */
  readonly value: number
  /** Each round's ratio, in round order, when more than one round measured it; else empty. */
  readonly rounds: readonly number[]
  /** The index of the round whose ratio `value` is; null when it was read from the median rows. */
  readonly round: number | null
}

/**
 * `ratio` of the run: computed within each of `rounds` (the rows each round measured) and the
 * median taken, or computed on `rows` (the median rows) when no round measured it (a run of one
 * round passes no rounds). Null when it could not be computed at all.
 */
export function roundRatio(
  rows: readonly Row[],
  rounds: readonly (readonly Row[])[],
  ratio: (byId: RowLookup) => number | null,
): RoundRatio | null {
  const perRound = rounds
    .map((round, index) => ({ index, value: ratio(lookup(round)) }))
    .filter(
      (r): r is { index: number; value: number } => r.value !== null && !Number.isNaN(r.value),
    )
  if (perRound.length === 0) {
    const one = ratio(lookup(rows))
    return one === null || Number.isNaN(one) ? null : { value: one, rounds: [], round: null }
  }
  const median = [...perRound].sort((a, b) => a.value - b.value)[
    Math.floor((perRound.length - 1) / 2)
  ]!
  return {
    value: median.value,
    rounds: perRound.length > 1 ? perRound.map((r) => r.value) : [],
    round: median.index,
  }
}

/** `a`'s value over `b`'s: null when either was not measured or `b` is zero. */
export function valueRatio(a: Row | undefined, b: Row | undefined): number | null {
  if (a?.value == null || b?.value == null || b.value === 0) return null
  return a.value / b.value
}

/** A ratio as text: "0.52", or "∞" for a baseline of nothing. */
export function formatRatio(ratio: number, digits = 2): string {
  return Number.isFinite(ratio) ? ratio.toFixed(digits) : '∞'
}

/** "; rounds 0.49 · 0.50 · 0.52" after a ratio read from several rounds, else "". */
export function roundsNote(ratio: RoundRatio | null, digits = 2): string {
  return ratio && ratio.rounds.length > 1
    ? `; rounds ${ratio.rounds.map((r) => formatRatio(r, digits)).join(' · ')}`
    : ''
}

/**
 * The rows of a run, and of each of its rounds: every ratio a target reads is taken within each
 * round and the median kept (`roundRatio`).
 */
export class RunRows {
  readonly rows: readonly Row[]
  readonly rounds: readonly (readonly Row[])[]

  constructor(rows: readonly Row[], rounds: readonly (readonly Row[])[]) {
    this.rows = rows
    this.rounds = rounds
  }

  /** A median row by id, when it was measured. */
  byId(id: string): Row | undefined {
    return lookup(this.rows)(id)
  }

  /** Row `a`'s value over row `b`'s, within each round. */
  share(a: string, b: string): RoundRatio | null {
    return roundRatio(this.rows, this.rounds, (byId) => valueRatio(byId(a), byId(b)))
  }

  /** Any ratio of rows, within each round. */
  ratio(of: (byId: RowLookup) => number | null): RoundRatio | null {
    return roundRatio(this.rows, this.rounds, of)
  }

  /**
   * Row `id` as `ratio` read it: of the round whose ratio is the median, or the median row. A
   * ratio is shown beside the two figures it was made of, not beside two median rows that may
   * come from different rounds.
   */
  rowOf(id: string, ratio: RoundRatio | null): Row | undefined {
    const round = ratio?.round ?? null
    return round === null ? this.byId(id) : lookup(this.rounds[round] ?? [])(id)
  }
}
