/**
 * The open streams of one mux, by id. A `Map` would do the bookkeeping, but not the garbage
 * collection: streams come and go thousands of times a second, so V8 keeps replacing the `Map`'s
 * hash table, and a discarded table that had reached the old generation still points at the
 * streams it held. Until the next full collection, every scavenge then keeps those streams alive,
 * and with them everything their handlers reach (the edge's whole request: headers, response,
 * closures). On a busy broker that was most of each request, promoted 2 MB at a time
 * (docs/benchmarks.md, "What burrowd's scavenges keep").
 *
 * Here a stream sits in a slot of an array chosen by its id, and leaving empties the slot; an
 * array this table lets go of is emptied first, so nothing stale is ever left behind. Ids on one
 * side of a mux step by two, so streams opened one after another take slots one after another.
 * The array exists only while streams are open (an idle tunnel holds none) and starts small. When
 * a new stream's slot is held by one still open, the array doubles if it is at least half full
 * (many streams at once), up to `MAX_SLOTS`; otherwise the holder is a stream that stayed open
 * while others came and went (an SSE stream beside short calls), and it moves to a small `Map`
 * beside the array, which such streams change seldom enough not to matter.
 */
import type { MuxStream } from './mux-stream.js'

/** Slots of a new array (a power of two). */
const MIN_SLOTS = 8
/** The most slots the array grows to (a power of two). */
const MAX_SLOTS = 1024

/** Open streams by id. */
export class StreamTable {
  /** Null while no stream is open. */
  #slots: (MuxStream | undefined)[] | null = null
  /** Long streams moved out of the array; null while there are none. */
  #aside: Map<number, MuxStream> | null = null
  #size = 0

  /** Streams in the table. */
  get size(): number {
    return this.#size
  }

  /** Slots the table holds now: 0 while it is empty. For tests. */
  get slotCount(): number {
    return this.#slots?.length ?? 0
  }

  get(id: number): MuxStream | undefined {
    const slots = this.#slots
    if (slots !== null) {
      const stream = slots[slotOf(id, slots.length)]
      if (stream !== undefined && stream.id === id) return stream
    }
    return this.#aside?.get(id)
  }

  has(id: number): boolean {
    return this.get(id) !== undefined
  }

  /** Add `stream` under its id; a stream already there with that id is replaced. */
  set(stream: MuxStream): void {
    const id = stream.id
    if (this.#aside?.has(id)) {
      this.#aside.set(id, stream)
      return
    }
    let slots = (this.#slots ??= emptySlots(MIN_SLOTS))
    for (;;) {
      const slot = slotOf(id, slots.length)
      const there = slots[slot]
      if (there === undefined || there.id === id) {
        if (there === undefined) this.#size++
        slots[slot] = stream
        return
      }
      if (slots.length < MAX_SLOTS && this.#size >= slots.length >> 1) {
        slots = this.#grow(slots)
        continue
      }
      ;(this.#aside ??= new Map()).set(there.id, there)
      slots[slot] = stream
      this.#size++
      return
    }
  }

  /** Remove the stream with `id`; false when there was none. */
  delete(id: number): boolean {
    const slots = this.#slots
    let found = false
    if (slots !== null) {
      const slot = slotOf(id, slots.length)
      const there = slots[slot]
      if (there !== undefined && there.id === id) {
        slots[slot] = undefined
        found = true
      }
    }
    if (!found && this.#aside?.delete(id)) {
      found = true
      if (this.#aside.size === 0) this.#aside = null
    }
    if (!found) return false
    // Every slot is empty now: the array goes (nothing in it points anywhere).
    if (--this.#size === 0) this.#slots = null
    return true
  }

  /** Every stream in the table (a copy: the table may change while the caller walks it). */
  values(): MuxStream[] {
    const out: MuxStream[] = []
    if (this.#slots !== null) for (const stream of this.#slots) if (stream) out.push(stream)
    if (this.#aside !== null) for (const stream of this.#aside.values()) out.push(stream)
    return out
  }

  clear(): void {
    this.#slots?.fill(undefined)
    this.#slots = null
    this.#aside = null
    this.#size = 0
  }

  /** Twice the slots; the old array is emptied so that it points at nothing once dropped. */
  #grow(old: (MuxStream | undefined)[]): (MuxStream | undefined)[] {
    const slots = emptySlots(old.length * 2)
    // Streams apart in the smaller array are apart in the larger one too.
    for (const stream of old) if (stream) slots[slotOf(stream.id, slots.length)] = stream
    old.fill(undefined)
    this.#slots = slots
    return slots
  }
}

function emptySlots(n: number): (MuxStream | undefined)[] {
  return new Array<MuxStream | undefined>(n).fill(undefined)
}

/** The slot of stream `id` among `n` (a power of two): ids of one side step by two. */
function slotOf(id: number, n: number): number {
  return (id >>> 1) & (n - 1)
}
