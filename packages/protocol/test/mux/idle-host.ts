// A stream host that does nothing: for tests of a stream's own bookkeeping, with no mux behind it.
import type { StreamHost } from '../../src/mux/mux-stream.js'

export const idleHost: StreamHost = {
  sendResponse() {},
  schedule() {},
  sendFin() {},
  sendReset() {},
  grant() {},
  finished() {},
}
