/**
 * Reads a tunnel stream's body through a gate that may make the next chunk wait: an agent's GET
 * stream takes the tunnel's policy as it is before each chunk (live-policy.ts), and when the
 * policy's cache must be read again first, the chunk waits for it. Chunks and the end are passed
 * on in the order they came, each once the gate is open for it; while any waits, the stream is
 * told it is full, so that no credit goes back to the tunnel client: what waits is bounded by the
 * stream's window. The response head passes the gate as a chunk does, before the chunks: a head
 * that comes late may carry the first events in its frame, and decides how the answer is
 * shaped. A gate that fails fails the reading: nothing waiting is passed on.
 */
import type { MuxStream, ResponseHead } from '@burrow/protocol'

/** True when the next chunk may pass now; else a promise settled when it may (or rejected). */
export type ReadGate = () => true | Promise<unknown>

/** What reads the chunks that passed the gate (false: the agent is full, as `MuxStream.read`). */
export interface GatedReader {
  /** The response head, with the body bytes its frame carried (as `MuxStream.onResponse`). */
  readonly head: (head: ResponseHead, inline: Uint8Array | undefined, fin: boolean) => void
  readonly chunk: (chunk: Uint8Array) => boolean | void
  readonly end: () => void
  /** The gate failed: what waited is dropped, and nothing more is read. */
  readonly failed: (err: Error) => void
}

/** A response head waiting for the gate. */
interface WaitingHead {
  readonly head: ResponseHead
  readonly inline: Uint8Array | undefined
  readonly fin: boolean
}

/**
 * Read `stream`'s head and body through `gate` (straight through when null). Returns what stops
 * the reading when the stream is reset: what waits is dropped, so that it neither answers an
 * agent the reset was answered to (or whose request was opened again) nor stays held.
 */
export function readGated(
  stream: MuxStream,
  gate: ReadGate | null,
  reader: GatedReader,
): () => void {
  if (gate === null) {
    stream.onResponse = reader.head
    stream.read(reader.chunk, reader.end)
    return () => {}
  }
  /** The head and chunks waiting for the gate, in order; null stands for the end. */
  const waiting: (Uint8Array | WaitingHead | null)[] = []
  let closed = false
  /** Whether the reader was full after the last chunk it took. */
  let full = false
  const gateNow = (): true | Promise<unknown> => {
    try {
      return gate()
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)))
    }
  }
  const pass = (): void => {
    while (waiting.length > 0 && !closed) {
      const open = gateNow()
      if (open !== true) return wait(open)
      const next = waiting.shift()!
      if (next === null) {
        closed = true
        return reader.end()
      }
      if (next instanceof Uint8Array) full = reader.chunk(next) === false
      else reader.head(next.head, next.inline, next.fin)
    }
    // What waited was taken: the stream may be read again unless the agent is full, in which
    // case its drain resumes it (relay-response.ts).
    if (!closed && !full && !stream.closed) stream.resumeReading()
  }
  const fail = (err: unknown): void => {
    if (closed) return
    closed = true
    waiting.length = 0
    reader.failed(err instanceof Error ? err : new Error(String(err)))
  }
  const wait = (open: Promise<unknown>): void => {
    open.then(() => {
      try {
        pass()
      } catch (err) {
        fail(err) // what the reader threw fails this stream only
      }
    }, fail)
  }
  stream.onResponse = (head, inline, fin) => {
    if (closed) return
    const open = waiting.length > 0 ? null : gateNow()
    if (open === true) return reader.head(head, inline, fin)
    waiting.push({ head, inline, fin })
    if (open !== null) wait(open)
  }
  stream.read(
    (chunk) => {
      if (closed) return true
      if (waiting.length > 0) {
        waiting.push(chunk)
        return false
      }
      const open = gateNow()
      if (open === true) {
        full = reader.chunk(chunk) === false
        return !full
      }
      waiting.push(chunk)
      wait(open)
      return false
    },
    () => {
      if (closed) return
      // The end may complete an event too: it waits for the gate as a chunk does.
      const open = waiting.length > 0 ? null : gateNow()
      if (open === true) {
        closed = true
        return reader.end()
      }
      waiting.push(null)
      if (open !== null) wait(open)
    },
  )
  return () => {
    closed = true
    waiting.length = 0
  }
}
