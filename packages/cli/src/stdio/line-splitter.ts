/**
 * Cuts a byte stream (a child's stdout or stderr) into text lines. Lines are assembled as bytes and
 * decoded once complete, so a UTF-8 character split across chunks survives; `\r` before the
 * newline is dropped (Windows children write CRLF) and does not count against the bound: a line
 * of exactly the bound's bytes then `\r\n` is read whole. A line longer than the bound is discarded as a
 * whole, so a runaway child cannot make the CLI buffer without limit; only its first and last
 * bytes are kept, to tell which request an answer too long to read was for, and its bytes can be
 * watched as they pass (`onSkippedBytes`), to read more of it without holding it. The bytes of an
 * unfinished line are copied together (`ByteBlocks`), not kept as the chunks they came in: a child
 * writing a byte per write reaches the reader in chunks of a few bytes, each its own allocation,
 * and a line under the bound held some 100 times its size (found by hostile review).
 */
import { ByteBlocks } from '@burrow/protocol'

const NEWLINE = 0x0a
const CARRIAGE_RETURN = 0x0d

/** Bytes kept of each end of a discarded line. */
export const KEPT_END_BYTES = 1024

/** The first and last bytes of a discarded line (`KEPT_END_BYTES` each, at most). */
export interface LineEnds {
  readonly head: Buffer
  readonly tail: Buffer
}

/** Splits pushed chunks into lines and hands each complete line to `onLine`. */
export class LineSplitter {
  readonly #maxLineBytes: number
  readonly #onLine: (line: string) => void
  readonly #onOverflow: (bytes: number, ends: LineEnds) => void
  readonly #onSkippedBytes: ((part: Buffer) => void) | undefined
  readonly #parts = new ByteBlocks()
  // Bytes of the oversized line being skipped, or -1 when not skipping.
  #skipped = -1
  #head = Buffer.alloc(0)
  #tail = Buffer.alloc(0)

  /**
   * @param maxLineBytes longest accepted line, its `\n` or `\r\n` excluded
   * @param onLine receives each line without its `\n` or `\r\n`
   * @param onOverflow told once per discarded line, with its size in bytes once known (a `\r`
   *   before its newline not counted) and its ends
   * @param onSkippedBytes given every byte of a discarded line (its newline excluded, a `\r`
   *   before it not), in order, in parts, before `onOverflow` is told of it
   */
  constructor(
    maxLineBytes: number,
    onLine: (line: string) => void,
    onOverflow: (bytes: number, ends: LineEnds) => void,
    onSkippedBytes?: (part: Buffer) => void,
  ) {
    this.#maxLineBytes = maxLineBytes
    this.#onLine = onLine
    this.#onOverflow = onOverflow
    this.#onSkippedBytes = onSkippedBytes
  }

  /** Feed the next chunk of the stream. */
  push(chunk: Buffer): void {
    let start = 0
    let at = chunk.indexOf(NEWLINE, start)
    while (at !== -1) {
      this.#append(chunk.subarray(start, at))
      this.#finishLine()
      start = at + 1
      at = chunk.indexOf(NEWLINE, start)
    }
    if (start < chunk.length) this.#append(chunk.subarray(start))
  }

  /** The stream ended: a last line without a newline still counts. */
  end(): void {
    if (this.#parts.length > 0 || this.#skipped >= 0) this.#finishLine()
  }

  #append(part: Buffer): void {
    if (part.length === 0) return
    if (this.#skipped >= 0) {
      this.#skipped += part.length
      this.#keepTail(part)
      this.#onSkippedBytes?.(part)
      return
    }
    const size = this.#parts.length + part.length
    // One `\r` past the bound may still be the line's end: held until the next byte tells.
    const endsInReturn = size === this.#maxLineBytes + 1 && part.at(-1) === CARRIAGE_RETURN
    if (size > this.#maxLineBytes && !endsInReturn) {
      this.#skipped = size
      const line = Buffer.concat([this.#parts.bytes(), part])
      this.#head = Buffer.from(line.subarray(0, KEPT_END_BYTES))
      this.#tail = Buffer.alloc(0)
      this.#keepTail(line)
      this.#parts.clear()
      this.#onSkippedBytes?.(line)
      return
    }
    this.#parts.push(part)
  }

  /** Keep the last `KEPT_END_BYTES` of the discarded line, `part` being its latest bytes. */
  #keepTail(part: Buffer): void {
    if (part.length >= KEPT_END_BYTES) {
      this.#tail = Buffer.from(part.subarray(part.length - KEPT_END_BYTES))
    } else {
      const joined = Buffer.concat([this.#tail, part])
      this.#tail = joined.subarray(Math.max(0, joined.length - KEPT_END_BYTES))
    }
  }

  #finishLine(): void {
    if (this.#skipped >= 0) {
      const returned = this.#tail.at(-1) === CARRIAGE_RETURN
      const bytes = this.#skipped - (returned ? 1 : 0)
      const ends = { head: this.#head, tail: this.#tail }
      this.#skipped = -1
      this.#head = this.#tail = Buffer.alloc(0)
      this.#onOverflow(bytes, ends)
      return
    }
    const held = this.#parts.bytes()
    const bytes = Buffer.from(held.buffer, held.byteOffset, held.length)
    this.#parts.clear()
    let line = bytes.toString('utf8')
    if (line.endsWith('\r')) line = line.slice(0, -1)
    this.#onLine(line)
  }
}
