/**
 * Writes a tunnelled answer's body to the agent. Bytes the agent's connection cannot take at once
 * wait here, small pieces copied together (ByteBlocks), not as one write each: a tunnel client
 * sending its answer one byte per frame to an agent that does not read made Node queue several
 * write entries per byte (the chunk, its chunked-encoding size and line ends), 500 bytes of memory
 * per byte the stream's credit counted, and a tunnel's 16 MiB of credit was worth gigabytes (found
 * by a hostile review). What waits is still bounded by the credit the tunnel stream is given:
 * `write` says false while the agent's connection is full, and `onRoom` is told once it drained.
 * What waits leaves corked, in its pieces (a stream's large ones are not copied again). While
 * the agent's connection still holds bytes it has not taken, small pieces gather until there are
 * `GATHER_BYTES` of them or it has taken them: a tunnel client pacing one byte per frame, one
 * frame a turn, made one write per byte (six bytes with its chunk framing, a block and Node's
 * write entry each) until the connection's 16 KiB mark, about 2,700 per answer (found by a
 * review). An agent that reads meanwhile gets them within `RECHECK_MS`.
 */
import type { ServerResponse } from 'node:http'
import { ByteBlocks, KEPT_PIECE_BYTES } from '@burrow/protocol'

/** Small pieces gathered before they leave while the agent's connection holds bytes. */
export const GATHER_BYTES = 4096
/** How often a connection holding bytes is looked at again, in milliseconds. */
const RECHECK_MS = 5

/** One answer's body on its way to the agent. */
export class AgentWriter {
  readonly #res: ServerResponse
  readonly #waiting = new ByteBlocks()
  #flushing = false
  #recheck: NodeJS.Timeout | null = null
  readonly #flushSoon = (): void => {
    this.#flushing = false
    this.#stopRecheck()
    const res = this.#res
    if (res.writableNeedDrain || res.destroyed) return
    if (res.writableLength > 0 && this.#waiting.length < GATHER_BYTES) {
      this.#recheck = setTimeout(this.#flushSoon, RECHECK_MS)
      return
    }
    this.flush()
  }

  /** `onRoom`: the agent took what waited; the tunnel stream may be read again. */
  constructor(res: ServerResponse, onRoom: () => void) {
    this.#res = res
    res.once('close', () => this.#stopRecheck())
    res.on('drain', () => {
      this.flush()
      if (!res.writableNeedDrain) onRoom()
    })
  }

  /** Write `chunk` (now, or once what waits before it went); false while the agent is full. */
  write(chunk: Uint8Array): boolean {
    const res = this.#res
    // A large piece costs Node's queue little per byte: it goes as it came, as before.
    if (
      this.#waiting.length === 0 &&
      (res.writableLength === 0 || chunk.length >= KEPT_PIECE_BYTES)
    )
      return res.write(chunk)
    this.#waiting.push(chunk)
    if (res.writableNeedDrain) return false
    // Not full yet (bytes wait in the socket): what came during this turn leaves as one write,
    // or, while the socket holds bytes, once enough gathered (or it took them: the recheck).
    if (!this.#flushing && (this.#recheck === null || this.#waiting.length >= GATHER_BYTES)) {
      this.#flushing = true
      setImmediate(this.#flushSoon)
    }
    return true
  }

  /**
   * Write what waits (before the answer ends): its pieces corked into one write, not copied
   * into one buffer (a stream's large pieces are kept as they came).
   */
  flush(): void {
    const waiting = this.#waiting
    const res = this.#res
    this.#stopRecheck()
    if (waiting.length === 0 || res.destroyed || res.writableEnded) return
    const pieces = waiting.chunks.slice()
    waiting.clear()
    if (pieces.length === 1) {
      res.write(pieces[0]!)
      return
    }
    res.cork()
    for (const piece of pieces) res.write(piece)
    res.uncork()
  }

  #stopRecheck(): void {
    if (this.#recheck !== null) clearTimeout(this.#recheck)
    this.#recheck = null
  }
}
