/**
 * The system resolver (`dns.lookup`, as `/etc/hosts` and the machine's resolver see names) for
 * the names burrowd is given by others: webhook receivers, OAuth client documents. `dns.lookup`
 * holds one of libuv's four pool threads until the answer, and names whose nameservers never
 * answer hold it for the resolver's whole timeout; strangers can make burrowd look names up
 * (OAuth client ids, 120 a minute per node), so unbounded they could hold every thread, and
 * password hashing (which shares the pool, password-work.ts) would stop. At most two lookups run
 * at once; the rest wait their turn (their callers' deadlines bound how long).
 */
import { lookup as dnsLookup } from 'node:dns'
import type { LookupAddress } from 'node:dns'

/** Lookups of others' names running at once: half of libuv's default pool. */
export const LOOKUPS_AT_ONCE = 2

/** What resolving takes: `dns.lookup` with `{ all: true }`. */
export type LookupAll = (
  hostname: string,
  options: { all: true },
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void

/** A resolver through `lookup` running at most `atOnce` lookups at a time, first come first. */
export function boundedResolve(
  lookup: LookupAll,
  atOnce: number = LOOKUPS_AT_ONCE,
): (hostname: string) => Promise<readonly LookupAddress[]> {
  let running = 0
  const waiting: (() => void)[] = []
  const start = (hostname: string, done: (error: Error | null, found: LookupAddress[]) => void) =>
    lookup(hostname, { all: true }, (error, addresses) => {
      const next = waiting.shift()
      if (next) next()
      else running--
      done(error, addresses)
    })
  return (hostname) =>
    new Promise((resolve, reject) => {
      const go = () => start(hostname, (error, found) => (error ? reject(error) : resolve(found)))
      if (running < atOnce) {
        running++
        go()
      } else waiting.push(go)
    })
}

/** The process's resolver for others' names (every guard shares its two places). */
export const systemResolve = boundedResolve(dnsLookup)
