/**
 * The writes of each tunnel's rug-pull pins to the store (tool-pins.ts), one after another per
 * tunnel so that a load of the pins can wait for those queued before it; a flood of the server's
 * `list_changed` is one write of the latest time (300,000 of them queued as many writes: a
 * hostile review). A write made while the tunnel's owner turned zero-knowledge on is followed by
 * the erasure of the definitions it wrote, also when it failed: it may have written some.
 */
import type { Logger } from '@burrow/protocol'
import type { ToolPinsStore } from '../store/tool-pins-store.js'

/** Options of `new PinWrites`. */
export interface PinWritesOptions {
  readonly store: ToolPinsStore
  readonly log: Logger
  /** Whether the tunnel is in zero-knowledge mode now. */
  readonly zeroKnowledgeNow?: (tunnelId: string) => boolean | Promise<boolean>
}

/** Each tunnel's queue of writes. */
export class PinWrites {
  readonly #opts: PinWritesOptions
  readonly #writes = new Map<string, Promise<unknown>>()
  /** When each tunnel's server last said its list changed, while that write waits its turn. */
  readonly #listChanges = new Map<string, Date>()

  constructor(opts: PinWritesOptions) {
    this.#opts = opts
  }

  /** The writes queued for `tunnelId`, if any. */
  queued(tunnelId: string): Promise<unknown> | undefined {
    return this.#writes.get(tunnelId)
  }

  /** Note that the server of `tunnelId` said its list changed `at`: one write of the latest. */
  listChanged(tunnelId: string, at: Date): void {
    const queued = this.#listChanges.has(tunnelId)
    this.#listChanges.set(tunnelId, at)
    if (queued) return
    this.write(tunnelId, () => {
      const latest = this.#listChanges.get(tunnelId) ?? at
      this.#listChanges.delete(tunnelId)
      return this.#opts.store.listChanged(tunnelId, latest)
    })
  }

  /** Queue `work` after the writes queued for `tunnelId`; a failure is logged. */
  write(tunnelId: string, work: () => Promise<unknown>): void {
    const previous = this.#writes.get(tunnelId) ?? Promise.resolve()
    const zeroKnowledgeNow = this.#opts.zeroKnowledgeNow
    const failed = (err: Error) =>
      this.#opts.log.warn(`rug-pull pins of ${tunnelId}: ${err.message}`)
    const next = previous
      .then(work)
      // Erased after a failed write too: a statement that timed out may land all the same, and
      // a write of several statements may fail after the first (a failure is not nothing written).
      .catch(failed)
      .then(async () => {
        if (zeroKnowledgeNow && (await zeroKnowledgeNow(tunnelId))) {
          await this.#opts.store.eraseDefinitions(tunnelId)
        }
      })
      .catch(failed)
    this.#writes.set(tunnelId, next)
    void next.finally(() => {
      if (this.#writes.get(tunnelId) === next) this.#writes.delete(tunnelId)
    })
  }

  /** Resolves when the writes queued so far are done (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.#writes.size > 0) await Promise.allSettled([...this.#writes.values()])
  }
}
