/**
 * Skips the `100 Continue` answers a local server sends unasked before its final answer. undici,
 * which relays to local HTTP servers, never sends `Expect: 100-continue`, so it takes a 100 for a
 * broken server and destroys the connection ("bad response"): the call failed and the agent got
 * `502 upstream_unreachable`, though the final answer followed. Other interim answers (102, 103)
 * undici reads and the relay skips (`http-relay.ts`); a 100 is dropped here, from the bytes the
 * connection receives, before undici reads them.
 *
 * An answer starts at the first bytes received after a request is written (undici writes the
 * next request on a connection only once the previous answer is in). Only there are bytes
 * looked at: interim heads (1xx but 101), one after another, a 100 dropped whole and the others
 * kept; from the first bytes that are no interim head (the final answer's), all is passed on as
 * it came, until the next request's first write.
 */
import type { Socket } from 'node:net'
import { buildConnector } from 'undici'

/** A head this long without its end is no 100 this reads: passed on, for undici to judge. */
const MAX_INTERIM_HEAD_BYTES = 16 * 1024

/** An interim status line's start, with `x` for the minor version (0 or 1). */
const INTERIM_START = 'HTTP/1.x 1'

/**
 * What `bytes`, received where an answer starts, begin with: `'final'` (no interim head: the
 * answer's own, or bytes undici is to judge), `'more'` (too few to tell), or an interim head
 * (1xx but 101) of `length` bytes, to `drop` when it is a 100.
 */
export function interimHead(bytes: Buffer): 'final' | 'more' | { length: number; drop: boolean } {
  const seen = Math.min(bytes.length, INTERIM_START.length)
  for (let i = 0; i < seen; i++) {
    const got = bytes[i]!
    if (i === 7 ? got !== 0x30 && got !== 0x31 : got !== INTERIM_START.charCodeAt(i)) return 'final'
  }
  // The code's two other digits, then the reason's space or the line's end.
  if (bytes.length < INTERIM_START.length + 3) return 'more'
  const code = bytes.toString('latin1', INTERIM_START.length - 1, INTERIM_START.length + 2)
  const next = bytes[INTERIM_START.length + 2]
  if (!/^1\d\d$/.test(code) || code === '101' || (next !== 0x20 && next !== 0x0d)) return 'final'
  const end = bytes.indexOf('\r\n\r\n', 0, 'latin1')
  if (end >= 0) return { length: end + 4, drop: code === '100' }
  return bytes.length > MAX_INTERIM_HEAD_BYTES ? 'final' : 'more'
}

/** Make `socket` drop the unasked 100 heads it receives where an answer starts. */
export function skipContinueHeads(socket: Socket): void {
  /** Bytes received where an answer starts, not yet told apart; null within an answer. */
  let start: Buffer | null = null
  /** Bytes of an answer were passed on: the next request's first write starts another. */
  let answering = true
  const push = socket.push.bind(socket)
  const write = socket.write.bind(socket) as (...args: unknown[]) => boolean
  socket.write = (...args: unknown[]): boolean => {
    if (answering) {
      answering = false
      start = Buffer.alloc(0)
    }
    return write(...args)
  }
  socket.push = (chunk: unknown, encoding?: BufferEncoding): boolean => {
    if (start === null || !Buffer.isBuffer(chunk)) {
      // The end (null) passes on what was held first.
      if (chunk === null && start !== null && start.length > 0) push(start)
      if (chunk === null) start = null
      return push(chunk, encoding)
    }
    let bytes = start.length === 0 ? chunk : Buffer.concat([start, chunk])
    const kept: Buffer[] = []
    let head = interimHead(bytes)
    // Interim heads one after another: a 100 dropped, the others (102, 103) kept for undici.
    while (head !== 'final' && head !== 'more') {
      if (!head.drop) kept.push(bytes.subarray(0, head.length))
      bytes = bytes.subarray(head.length)
      head = bytes.length === 0 ? 'more' : interimHead(bytes)
    }
    start = head === 'more' ? bytes : null
    if (head === 'final') {
      answering = true
      kept.push(bytes)
    }
    if (kept.length === 0) return true
    return push(kept.length === 1 ? kept[0] : Buffer.concat(kept))
  }
}

/** undici's connector, its sockets skipping unasked 100 heads. */
export function continueSkippingConnector(): buildConnector.connector {
  const connect = buildConnector({})
  return (options, callback) =>
    connect(options, (err, socket) => {
      if (err !== null) return callback(err, null)
      skipContinueHeads(socket)
      callback(null, socket)
    })
}
