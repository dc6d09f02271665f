/**
 * The requests a tunnel connection carries (or the whole client), each from the OPEN that starts
 * it until its answer went to the tunnel: a drain waits for them. An agent's GET stream, which may
 * stay open for hours, is not one of them.
 */
export class InFlight {
  #count = 0
  readonly #idle = new Set<() => void>()

  /** Requests in flight now. */
  get count(): number {
    return this.#count
  }

  /** Count one request until the returned call (the first one; later calls do nothing). */
  begin(): () => void {
    this.#count++
    let ended = false
    return () => {
      if (ended) return
      ended = true
      if (--this.#count === 0) for (const done of [...this.#idle]) done()
    }
  }

  /** Once no request is in flight (at once when none is), or after `ms`. */
  whenIdle(ms: number): Promise<void> {
    if (this.#count === 0) return Promise.resolve()
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer)
        this.#idle.delete(done)
        resolve()
      }
      const timer = setTimeout(done, ms)
      this.#idle.add(done)
    })
  }
}
