/**
 * Reusable buffers for DATA frames. A bulk transfer sends thousands of 64 KiB frames a second;
 * allocating each one afresh is an ArrayBuffer outside the JS heap per frame, and V8 answers that
 * much external memory with frequent full collections (a third of the client's CPU in a 10 MiB
 * download). A frame's buffer comes back once the transport reports its bytes were written.
 *
 * One free list serves every mux in the process and keeps at most `MAX_FREE` buffers (2 MiB), so
 * an idle process, or a broker with thousands of quiet tunnels, holds almost nothing for it.
 */
import { HEADER_BYTES, MAX_CHUNK_BYTES } from '../frame.js'

/** Size of every pooled buffer: the largest DATA frame. */
export const FRAME_BUFFER_BYTES = HEADER_BYTES + MAX_CHUNK_BYTES

const MAX_FREE = 32
const free: Buffer[] = []

/** A buffer of `FRAME_BUFFER_BYTES` to encode one DATA frame into. */
export function takeFrameBuffer(): Buffer {
  return free.pop() ?? Buffer.allocUnsafeSlow(FRAME_BUFFER_BYTES)
}

/** Give back a buffer from `takeFrameBuffer` whose bytes nobody reads any more. */
export function returnFrameBuffer(buf: Buffer): void {
  if (buf.length === FRAME_BUFFER_BYTES && free.length < MAX_FREE) free.push(buf)
}

/** Buffers waiting for reuse (for tests). */
export function freeFrameBuffers(): number {
  return free.length
}
