// Percentiles of recorded latencies, nearest-rank.

/** The `p`-quantile (0 < p ≤ 1) of `sorted`, ascending; NaN when empty. */
export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(p * sorted.length)))
  return sorted[rank - 1]!
}

/** Latencies collected one by one, without reallocating per sample. */
export class LatencyLog {
  #values = new Float64Array(1 << 16)
  #length = 0

  add(ms: number): void {
    if (this.#length === this.#values.length) {
      const grown = new Float64Array(this.#values.length * 2)
      grown.set(this.#values)
      this.#values = grown
    }
    this.#values[this.#length++] = ms
  }

  get count(): number {
    return this.#length
  }

  /** The samples, sorted ascending. */
  sorted(): Float64Array {
    return this.#values.slice(0, this.#length).sort()
  }
}
