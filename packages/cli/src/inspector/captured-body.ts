/**
 * A body as the inspector keeps it: the first bytes up to a bound, decoded as UTF-8 text, with
 * the full size and whether the rest was cut off. Big uploads and downloads must not make the
 * recorder grow without limit; the agent still receives every byte.
 */

/** Bodies over this many bytes are cut (256 KiB). */
export const DEFAULT_MAX_BODY_BYTES = 256 * 1024

/** What the inspector shows of a body. */
export interface CapturedBody {
  /** The kept bytes as UTF-8 text (a multi-byte character cut at the bound is dropped). */
  readonly text: string
  /** Size of the whole body in bytes, including what was not kept. */
  readonly bytes: number
  /** True when `text` holds only the first part of the body. */
  readonly truncated: boolean
}

/**
 * Collects the first `maxBytes` of a body that arrives in chunks, copied into one buffer that
 * doubles as it fills (at most twice what it holds, and never past the bound). Not a list of the
 * chunks: a server that sends its answer a byte at a time made each byte an array of its own,
 * some 200 bytes where 1 was counted (found by a hostile review: 20 answers of 256 KiB held
 * 1.1 GB, and the 64 MiB budget would have let 250 of them stay).
 */
export class BodyCapture {
  readonly #max: number
  #buffer = new Uint8Array(0)
  #kept = 0
  #bytes = 0

  constructor(maxBytes: number = DEFAULT_MAX_BODY_BYTES) {
    this.#max = maxBytes
  }

  /** Total bytes seen so far. */
  get bytes(): number {
    return this.#bytes
  }

  /** Bytes held in memory: the buffer's size, kept or not yet filled. */
  get keptBytes(): number {
    return this.#buffer.length
  }

  /** Add a chunk; the part past the bound is counted but not kept. Copies what it keeps. */
  add(chunk: Uint8Array): void {
    this.#bytes += chunk.length
    const room = this.#max - this.#kept
    if (room <= 0 || chunk.length === 0) return
    // Copied: the caller may reuse its buffer once the write returned.
    const part = chunk.subarray(0, Math.min(room, chunk.length))
    const needed = this.#kept + part.length
    if (needed > this.#buffer.length) {
      const size = Math.min(this.#max, Math.max(needed, 2 * this.#buffer.length, 1024))
      const grown = new Uint8Array(size)
      grown.set(this.#buffer.subarray(0, this.#kept))
      this.#buffer = grown
    }
    this.#buffer.set(part, this.#kept)
    this.#kept = needed
  }

  /**
   * The body so far, decoded on each call and not kept here: the text would double what the
   * capture holds without being counted.
   */
  snapshot(): CapturedBody {
    const whole = Buffer.from(this.#buffer.buffer, this.#buffer.byteOffset, this.#kept)
    const truncated = this.#bytes > this.#kept
    // A `fatal: false` decoder would show U+FFFD for a character split at the bound; cut it.
    let text = whole.toString('utf8')
    if (truncated && text.endsWith('\uFFFD')) text = text.slice(0, -1)
    return { text, bytes: this.#bytes, truncated }
  }
}

/** Capture a complete body in one go. */
export function captureBody(body: Uint8Array, maxBytes?: number): CapturedBody {
  const capture = new BodyCapture(maxBytes)
  capture.add(body)
  return capture.snapshot()
}
