/**
 * Bytes received from a peer and kept for a while (an answer read whole, bytes waiting for a slow
 * agent). A peer that sends them one byte per frame would otherwise leave one Buffer per byte,
 * each a view that also keeps alive the whole socket read it came in: hundreds of bytes of memory
 * per byte counted, so that every bound counted in bytes was worth a hundred times more (found by
 * a hostile review). Small pieces are copied together into blocks of their own, which grow with
 * what is held (so a small answer takes a small block); large ones are kept as they came. Bytes
 * may be taken from the front (`take`), so that the blocks serve as a queue too.
 */

/** Pieces at least this large are kept as they came: a view of at most twice its size. */
export const KEPT_PIECE_BYTES = 32 * 1024

/** Smallest and largest block small pieces are copied into. */
const MIN_BLOCK = 256
const MAX_BLOCK = 64 * 1024

/** A run of bytes held in few pieces, copied out of the buffers they arrived in when small. */
export class ByteBlocks {
  /** The pieces, in order (the last may be the block being filled). */
  readonly chunks: Uint8Array[] = []
  /** Bytes held. */
  length = 0
  /** The block being filled: its bytes from `#start` to `#used` are the last piece. */
  #block: Buffer | null = null
  #start = 0
  #used = 0

  /** Add `chunk` at the end: copied into a block when small, as it came when large. */
  push(chunk: Uint8Array): void {
    if (chunk.length >= KEPT_PIECE_BYTES) return this.keep(chunk)
    if (chunk.length === 0) return
    this.length += chunk.length
    let at = 0
    while (at < chunk.length) {
      let block = this.#block
      if (block === null || this.#used === block.length) {
        const size = Math.min(MAX_BLOCK, Math.max(MIN_BLOCK, this.length - at))
        // Not from Buffer's shared pool: a small block would keep a whole pool slab alive.
        block = this.#block = Buffer.allocUnsafeSlow(size)
        this.#start = this.#used = 0
        this.chunks.push(block.subarray(0, 0))
      }
      const n = Math.min(chunk.length - at, block.length - this.#used)
      block.set(chunk.subarray(at, at + n), this.#used)
      this.#used += n
      this.chunks[this.chunks.length - 1] = block.subarray(this.#start, this.#used)
      at += n
    }
  }

  /** Add `chunk` at the end as it came, whatever its size (it is not copied). */
  keep(chunk: Uint8Array): void {
    if (chunk.length === 0) return
    this.length += chunk.length
    this.#block = null
    this.chunks.push(chunk)
  }

  /**
   * Take up to `max` bytes from the front, in the pieces they are held in (not copied; the last
   * may be part of a piece). A block's bytes taken are never written again.
   */
  take(max: number): Uint8Array[] {
    const parts: Uint8Array[] = []
    let room = Math.max(0, Math.min(max, this.length))
    this.length -= room
    while (room > 0) {
      const first = this.chunks[0]!
      // The block being filled is the last piece: what is taken of it is no longer its piece.
      const filling = this.#block !== null && this.chunks.length === 1
      if (first.length <= room) {
        this.chunks.shift()
        parts.push(first)
        room -= first.length
        if (filling) this.#block = null
      } else {
        parts.push(first.subarray(0, room))
        this.chunks[0] = first.subarray(room)
        if (filling) this.#start += room
        room = 0
      }
    }
    return parts
  }

  /** Every byte held, in one piece. */
  bytes(): Uint8Array {
    return this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.length)
  }

  /** Drop everything held. */
  clear(): void {
    this.chunks.length = 0
    this.length = 0
    this.#block = null
    this.#start = this.#used = 0
  }
}
