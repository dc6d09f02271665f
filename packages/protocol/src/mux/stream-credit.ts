/**
 * How much credit a stream's receiver gives back, and when its window grows. Credit is the
 * receiver's to give, so a receiver may grant more than was consumed: ours doubles a stream's
 * window while its reader keeps up, without any change to the wire protocol.
 */
import { INITIAL_STREAM_WINDOW } from '../frame.js'
import type { MuxStream } from './mux-stream.js'

/**
 * Largest window a stream's receiver offers. A stream starts with the protocol's initial window
 * and doubles it each time its reader consumed a whole window within `WINDOW_GROWTH_MS`: a bulk
 * transfer is then no longer paced by credit round trips (WINDOW frames, and the wake-ups of
 * both processes, become up to sixteen times rarer), while a slow reader (an agent reading
 * under 5 MB/s) keeps the initial window and so bounds what waits for it.
 */
export const MAX_STREAM_WINDOW = 4 * 1024 * 1024

/** A window consumed this fast (in ms) is too small for its stream: see MAX_STREAM_WINDOW. */
export const WINDOW_GROWTH_MS = 50

/**
 * What one connection remembers of its streams' windows: the largest a reader earned. A stream's
 * first credit (once its reader consumed half of the initial window, so never for an answer that
 * fits in it) then opens the stream at once to that window instead of growing it again from the
 * initial one: a 10 MiB answer spent most of its bytes growing its window, one credit round trip
 * per half window. What waits in the receiver stays bounded by the connection's window.
 */
export class WindowMemory {
  target = INITIAL_STREAM_WINDOW
}

/**
 * The credit to send for `stream` now that its reader consumed more, or 0 while less than half
 * of its window was consumed. Updates the stream's growth bookkeeping and `memory`; `now` is read
 * only when the window may still grow.
 */
export function streamCredit(stream: MuxStream, now: () => number, memory?: WindowMemory): number {
  const consumed = stream.recvTarget - stream.recvWindow - stream.heldBytes
  if (consumed < stream.recvTarget / 2) return 0
  if (memory && stream.streakStart < 0 && memory.target > stream.recvTarget) {
    stream.recvTarget = memory.target
  }
  if (stream.recvTarget < MAX_STREAM_WINDOW) {
    // Time how long the reader takes to consume one whole window after a credit.
    const at = now()
    if (stream.streakStart < 0) {
      stream.streakStart = at
    } else {
      stream.recvStreak += consumed
      if (stream.recvStreak >= stream.recvTarget) {
        if (at - stream.streakStart <= WINDOW_GROWTH_MS) {
          stream.recvTarget *= 2
          if (memory && stream.recvTarget > memory.target) memory.target = stream.recvTarget
        }
        stream.recvStreak = 0
        stream.streakStart = at
      }
    }
  }
  return stream.recvTarget - stream.recvWindow - stream.heldBytes
}
