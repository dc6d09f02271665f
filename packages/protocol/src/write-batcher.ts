/**
 * Batches a socket's writes per event-loop turn. A socket write is a system call, and on a busy
 * tunnel one turn of the loop produces many frames (the OPENs of several requests that arrived
 * together, the RESPONSEs of several local calls that finished together). Holding the socket
 * corked from the first write of a turn until `setImmediate` lets Node hand all of them to the
 * kernel in one `writev`. Order is untouched: the bytes stay in the socket's own queue.
 *
 * `setImmediate` runs right after the current turn's I/O callbacks, so a lone frame waits only
 * for the rest of its own turn (microseconds), never for more input. `process.nextTick` would
 * be too early: it releases after the current callback, which rarely wrote more than one frame.
 */

/** What can hold writes back: a `net.Socket` (or any Writable). */
export interface Corkable {
  cork(): void
  uncork(): void
}

/** Corks `target` on the first write of a turn and uncorks it when the turn's I/O is done. */
export class WriteBatcher {
  private readonly target: Corkable
  private held = false
  private immediate: NodeJS.Immediate | undefined
  private readonly release = (): void => {
    this.held = false
    this.immediate = undefined
    this.target.uncork()
  }

  constructor(target: Corkable) {
    this.target = target
  }

  /** True while writes are being held for the end of this turn. */
  get holding(): boolean {
    return this.held
  }

  /** Call before each write to the target. */
  hold(): void {
    if (this.held) return
    this.held = true
    this.target.cork()
    this.immediate = setImmediate(this.release)
  }

  /**
   * Send what is held now, for writes whose timing others can observe: a deliberate close should
   * reach the peer before the program reports it (a test, or a user, may act on the report).
   */
  flush(): void {
    if (!this.held) return
    clearImmediate(this.immediate)
    this.release()
  }
}
