/**
 * Bounds on the local listeners of `burrow up` (the inspector, the metrics listener), which every
 * program of the machine can connect to, and anything on the network too when one is bound to a
 * network address. Node's HTTP server keeps a connection that sends nothing, or half a request,
 * for ever, and takes as many as come: each holds a file descriptor of `burrow up`, whose tunnel,
 * local servers and upstream connections need them too, and once the process has none left those
 * fail (EMFILE). So each listener takes at most `maxConnections` at once and closes a connection
 * that stays silent for `idleMs` before its request has come in whole. A route that may
 * legitimately stay silent longer (the inspector's replay, its live feed) lifts the limit for its
 * request with `keepWhileServing`, once the request has been let in.
 */
import type { IncomingMessage, Server } from 'node:http'

/** How many connections a listener takes at once, and how long one may stay silent. */
export interface ListenerLimits {
  readonly maxConnections: number
  readonly idleMs: number
}

/** The limits of the inspector and of the metrics listener unless a test asks for others. */
export const LOCAL_LISTENER_LIMITS: ListenerLimits = Object.freeze({
  maxConnections: 128,
  idleMs: 10_000,
})

/** Apply `limits` to `server` (before it listens). */
export function limitListener(server: Server, limits: ListenerLimits): void {
  server.maxConnections = limits.maxConnections
  // The socket's inactivity timeout: without a listener for 'timeout', Node destroys the socket.
  // After each response Node uses its keep-alive timeout instead.
  server.timeout = limits.idleMs
}

/** Let `req`'s connection stay silent while its request is served (until the response ends). */
export function keepWhileServing(req: IncomingMessage): void {
  req.socket.setTimeout(0)
}
