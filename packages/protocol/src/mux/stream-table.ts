/**
 * The open streams of one mux, by id. A `Map` would do the bookkeeping, but not the garbage
 * collection: streams come and go thousands of times a second, so V8 keeps replacing the `Map`'s
 * hash table, and a discarded table that had reached the old generation still points at the
 * streams it held. Until the next full collection, every scavenge then keeps those streams alive,
 * and with them everything their handlers reach (the edge's whole request: headers, response,
 * closures). On a busy broker that was most of each request, promoted 2 MB at a time
 * (docs/benchmarks.md, "What burrowd's scavenges keep").
 *
 * Here a stream sits in a slot of a fixed array chosen by its id, and leaving empties the slot:
 * the array is never replaced, so nothing stale is left behind. Ids on one side of a mux step by
 * two, so consecutive streams take consecutive slots; a stream whose slot is taken by one still
 * open (more than `SLOTS` ids apart: a long-lived stream among many short ones) waits in a small
 * `Map` beside it.
 */
import type { MuxStream } from './mux-stream.js'

/** Slots in the fixed array (a power of two). */
const SLOTS = 1024
const MASK = SLOTS - 1

/** Open streams by id. */
export class StreamTable {
  readonly #slots: (MuxStream | undefined)[] = new Array<MuxStream | undefined>(SLOTS).fill(
    undefined,
  )
  /** Streams whose slot was taken when they opened. */
  readonly #overflow = new Map<number, MuxStream>()
  #size = 0

  /** Streams in the table. */
  get size(): number {
    return this.#size
  }

  get(id: number): MuxStream | undefined {
    const stream = this.#slots[slotOf(id)]
    if (stream !== undefined && stream.id === id) return stream
    return this.#overflow.size === 0 ? undefined : this.#overflow.get(id)
  }

  has(id: number): boolean {
    return this.get(id) !== undefined
  }

  /** Add `stream` under its id; an id already present is replaced. */
  set(stream: MuxStream): void {
    const slot = slotOf(stream.id)
    const there = this.#slots[slot]
    if (there === undefined || there.id === stream.id) {
      if (there === undefined) this.#size++
      this.#slots[slot] = stream
      return
    }
    if (!this.#overflow.has(stream.id)) this.#size++
    this.#overflow.set(stream.id, stream)
  }

  /** Remove the stream with `id`; false when there was none. */
  delete(id: number): boolean {
    const slot = slotOf(id)
    const there = this.#slots[slot]
    if (there !== undefined && there.id === id) {
      this.#slots[slot] = undefined
      this.#size--
      return true
    }
    if (!this.#overflow.delete(id)) return false
    this.#size--
    return true
  }

  /** Every stream in the table (a copy: the table may change while the caller walks it). */
  values(): MuxStream[] {
    const out: MuxStream[] = []
    if (this.#size === 0) return out
    for (const stream of this.#slots) if (stream !== undefined) out.push(stream)
    for (const stream of this.#overflow.values()) out.push(stream)
    return out
  }

  clear(): void {
    this.#slots.fill(undefined)
    this.#overflow.clear()
    this.#size = 0
  }
}

/** The slot of stream `id`: ids of one side step by two. */
function slotOf(id: number): number {
  return (id >>> 1) & MASK
}
