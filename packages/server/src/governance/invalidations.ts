/**
 * How many times each tunnel's cached state was dropped, so that a read begun before a drop
 * (which may have read what the change replaced) can tell, and serve its caller without caching
 * what it read. Bounded: past `max` tunnels the counts are forgotten and a new epoch begins, which
 * no read under way began in.
 */
export class Invalidations {
  readonly #counts = new Map<string, number>()
  readonly #max: number
  #epoch = 0

  constructor(max = 10_000) {
    this.#max = max
  }

  /** `tunnelId`'s cached state was dropped. */
  note(tunnelId: string): void {
    if (this.#counts.size >= this.#max) {
      this.#counts.clear()
      this.#epoch++
    }
    this.#counts.set(tunnelId, (this.#counts.get(tunnelId) ?? 0) + 1)
  }

  /** What a read of `tunnelId` compares before caching: equal while nothing was dropped. */
  of(tunnelId: string): string {
    return `${this.#epoch}:${this.#counts.get(tunnelId) ?? 0}`
  }
}
