/**
 * Bytes received from a peer and kept for a while (an answer read whole, bytes waiting for a slow
 * agent). A peer that sends them one byte per frame would otherwise leave one Buffer per byte,
 * each a view that also keeps alive the whole socket read it came in: hundreds of bytes of memory
 * per byte counted, so that every bound counted in bytes was worth a hundred times more (found by
 * a hostile review). Small pieces are copied together into blocks of their own, which grow with
 * what is held (so a small answer takes a small block); large ones are kept as they came.
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
  #block: Buffer | null = null
  #used = 0

  /** Add `chunk` at the end. */
  push(chunk: Uint8Array): void {
    if (chunk.length === 0) return
    this.length += chunk.length
    if (chunk.length >= KEPT_PIECE_BYTES) {
      this.#block = null
      this.chunks.push(chunk)
      return
    }
    let at = 0
    while (at < chunk.length) {
      let block = this.#block
      if (block === null || this.#used === block.length) {
        const size = Math.min(MAX_BLOCK, Math.max(MIN_BLOCK, this.length - at))
        // Not from Buffer's shared pool: a small block would keep a whole pool slab alive.
        block = this.#block = Buffer.allocUnsafeSlow(size)
        this.#used = 0
        this.chunks.push(block.subarray(0, 0))
      }
      const n = Math.min(chunk.length - at, block.length - this.#used)
      block.set(chunk.subarray(at, at + n), this.#used)
      this.#used += n
      this.chunks[this.chunks.length - 1] = block.subarray(0, this.#used)
      at += n
    }
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
    this.#used = 0
  }
}
