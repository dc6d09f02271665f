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

/** Collects the first `maxBytes` of a body that arrives in chunks. */
export class BodyCapture {
  readonly #max: number
  readonly #chunks: Uint8Array[] = []
  #kept = 0
  #bytes = 0
  #cached: CapturedBody | null = null

  constructor(maxBytes: number = DEFAULT_MAX_BODY_BYTES) {
    this.#max = maxBytes
  }

  /** Total bytes seen so far. */
  get bytes(): number {
    return this.#bytes
  }

  /** Bytes held in memory. */
  get keptBytes(): number {
    return this.#kept
  }

  /** Add a chunk; the part past the bound is counted but not kept. Copies what it keeps. */
  add(chunk: Uint8Array): void {
    this.#bytes += chunk.length
    this.#cached = null
    const room = this.#max - this.#kept
    if (room <= 0 || chunk.length === 0) return
    // Copy: the caller may reuse its buffer once the write returned.
    const part = chunk.slice(0, Math.min(room, chunk.length))
    this.#chunks.push(part)
    this.#kept += part.length
  }

  /** The body so far. */
  snapshot(): CapturedBody {
    if (this.#cached) return this.#cached
    const whole = Buffer.concat(this.#chunks, this.#kept)
    const truncated = this.#bytes > this.#kept
    // A `fatal: false` decoder would show U+FFFD for a character split at the bound; cut it.
    let text = whole.toString('utf8')
    if (truncated && text.endsWith('\uFFFD')) text = text.slice(0, -1)
    this.#cached = { text, bytes: this.#bytes, truncated }
    return this.#cached
  }
}

/** Capture a complete body in one go. */
export function captureBody(body: Uint8Array, maxBytes?: number): CapturedBody {
  const capture = new BodyCapture(maxBytes)
  capture.add(body)
  return capture.snapshot()
}
