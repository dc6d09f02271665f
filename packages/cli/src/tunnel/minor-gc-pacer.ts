/**
 * Asks V8 for a minor collection (a scavenge) after every few MiB of response body that `burrow
 * up` sends through the tunnel. Each socket read of a large body allocates its buffer outside
 * the JS heap; V8 frees young buffers only when it scavenges, and while bytes stream but few JS
 * objects are allocated it rarely does, so the buffers piled up as external memory until they
 * set off full mark-compact collections (64 in a 4 s transfer, a third of the client's CPU). A
 * scavenge of a heap with few survivors costs about a millisecond and frees them first. Small
 * calls never reach the threshold, so they are collected as V8 sees fit.
 *
 * V8's collector is reached by enabling `--expose-gc` at run time and taking `gc` from a fresh
 * context; where that is not possible, the pacer does nothing.
 */
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

/** Body bytes between two minor collections (measured: 8 MiB leaves at most one mark-compact in
 * a 4 s transfer; 32 MiB still let dozens through). */
export const MINOR_GC_EVERY_BYTES = 8 * 1024 * 1024

/** Runs one minor collection. */
export type MinorGc = () => void

/** Counts relayed body bytes and collects after every `every` of them. */
export class MinorGcPacer {
  readonly #gc: MinorGc | null
  readonly #every: number
  #bytes = 0

  constructor(gc: MinorGc | null, every = MINOR_GC_EVERY_BYTES) {
    this.#gc = gc
    this.#every = every
  }

  /** Whether collections can be asked for at all. */
  get active(): boolean {
    return this.#gc !== null
  }

  /** `n` more body bytes were handed to the tunnel. */
  add(n: number): void {
    if (this.#gc === null) return
    this.#bytes += n
    if (this.#bytes < this.#every) return
    this.#bytes = 0
    this.#gc()
  }
}

/** V8's minor collection, or null when this Node does not let us call it. */
export function loadMinorGc(): MinorGc | null {
  try {
    setFlagsFromString('--expose-gc')
    const gc: unknown = runInNewContext('gc')
    if (typeof gc !== 'function') return null
    return () => (gc as (options: { type: 'minor' }) => void)({ type: 'minor' })
  } catch {
    return null
  }
}

let shared: MinorGcPacer | undefined

/** The process's pacer, made on first use. */
export function minorGcPacer(): MinorGcPacer {
  shared ??= new MinorGcPacer(loadMinorGc())
  return shared
}
