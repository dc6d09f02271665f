/**
 * What stdio servers that exited on their own left running in their process groups (a wrapper's
 * server, a tool's command), being stopped (`stopGroup`), so that a shutdown can wait for them.
 * Before, each restart after a crash left them running, holding the old pipes, and nothing ever
 * stopped them, not even `burrow up`'s exit (found by a hostile review).
 */
import type { ChildProcess } from 'node:child_process'
import { stopGroup } from './stop-child.js'

/** The groups of exited children being stopped. */
export class LeftoverGroups {
  readonly #stopping = new Set<Promise<void>>()

  /** Stop what is left of the group of `child`, which has exited. */
  stop(child: ChildProcess, graceMs: number): void {
    const stopping = stopGroup(child, graceMs).finally(() => this.#stopping.delete(stopping))
    this.#stopping.add(stopping)
  }

  /** Resolves once every group being stopped now is. */
  async stopped(): Promise<void> {
    await Promise.all(this.#stopping)
  }
}
