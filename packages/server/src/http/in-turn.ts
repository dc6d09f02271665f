/**
 * HTTP/1.1 pipelining, served one request at a time. Node's server hands every pipelined request
 * to the handler as soon as it is parsed, while their answers leave in order; and when the client
 * hangs up, the answers still queued behind an unfinished one never emit `close`, so whatever a
 * handler took for them (a session's place, body budget, answer copies, a tunnel stream, the
 * in-flight count a drain waits for) was never given back. A stranger pipelining calls behind a
 * GET stream and hanging up so kept a tunnel from every new agent until burrowd restarted (found
 * by a hostile review). Here a pipelined request's handler runs only once its answer's turn has
 * come (Node gives the answer its socket, `res.socket`, then): before that, nothing is taken for
 * it, so a hang-up leaves nothing behind. Its body waits in Node's buffer meanwhile (Node stops
 * reading the connection when one request's 16 KiB buffer is full), and a connection queueing
 * more than `MAX_QUEUED_PER_CONNECTION` requests is closed: at most that many heads (16 KiB each)
 * and buffers wait per connection. A request runs in the tick after its turn came, once the
 * answer before it has emitted `close` and given back what it held (a session's place, say).
 * Nothing changes for a request that comes alone, as every agent's and proxy's do.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'

/** Requests a connection may have waiting behind the one being answered. */
export const MAX_QUEUED_PER_CONNECTION = 8

/** Requests waiting on each connection. */
const queued = new WeakMap<Socket, number>()

/**
 * Run `handle` for `req` now if its answer is the connection's current one; else once its turn
 * comes, or never, when the connection closes first. Returns false when the connection was
 * closed for queueing too many.
 */
export function inTurn(req: IncomingMessage, res: ServerResponse, handle: () => void): boolean {
  if (res.socket !== null) {
    handle()
    return true
  }
  const socket = req.socket
  if (socket.destroyed) return false
  const waiting = (queued.get(socket) ?? 0) + 1
  if (waiting > MAX_QUEUED_PER_CONNECTION) {
    queued.delete(socket)
    socket.destroy()
    return false
  }
  queued.set(socket, waiting)
  res.once('socket', () => {
    const left = (queued.get(socket) ?? 1) - 1
    if (left > 0) queued.set(socket, left)
    else queued.delete(socket)
    // Node emits the answer before's `close` in the next tick: run after it.
    process.nextTick(() => {
      if (!socket.destroyed) handle()
    })
  })
  return true
}

/**
 * Whether requests wait on `socket` behind the answer being written: anything Node would answer
 * on it itself (a request timeout, a parse error) concerns one of them, and must not be written
 * into that answer (http/answer-client-error.ts).
 */
export function hasQueued(socket: Socket): boolean {
  return queued.has(socket)
}
