/**
 * Whether `up` talks to its service in plain text over the network: `--broker ws://…` (or
 * `http://…`) naming a host other than this machine sends the tunnel key, in the upgrade's
 * `Authorization`, and every call in the clear. `up` warns of it (found by a hostile review); a
 * local burrowd, as `npm start` runs, is not warned of.
 */
import { isLoopbackHost } from '../loopback.js'

/** The broker's `ws://host[:port]` when it is plain WebSocket to another machine, else null. */
export function unencryptedBroker(broker: string): string | null {
  const url = new URL(broker)
  return url.protocol === 'ws:' && !isLoopbackHost(url.hostname) ? `ws://${url.host}` : null
}
