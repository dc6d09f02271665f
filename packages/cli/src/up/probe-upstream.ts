/**
 * A look, before the tunnel connects, at whether anything listens at a single HTTP upstream's
 * address: one TCP connection with a short timeout, closed at once. `up` only warns on what it
 * finds (the server may be started later, and agents get a 502 naming it meanwhile), so a user
 * whose server is down hears it at start rather than at an agent's first call.
 */
import { connect } from 'node:net'
import { describeConnectError } from '../tunnel/connect-error.js'

/** Default wait for the connection. */
export const PROBE_TIMEOUT_MS = 2_000

/** Resolves with why nothing answers at `url`'s host and port, or null when something does. */
export function probeUpstream(url: string, timeoutMs = PROBE_TIMEOUT_MS): Promise<string | null> {
  const target = new URL(url)
  const host = target.hostname.replace(/^\[(.*)\]$/, '$1')
  const port = Number(target.port || (target.protocol === 'https:' ? 443 : 80))
  return new Promise((resolve) => {
    const socket = connect({ host, port })
    const done = (problem: string | null) => {
      socket.destroy()
      resolve(problem)
    }
    socket.setTimeout(timeoutMs, () => done(`no answer within ${(timeoutMs / 1000).toFixed(0)} s`))
    socket.once('connect', () => done(null))
    socket.once('error', (err) => done(describeConnectError(err)))
  })
}
