/**
 * The system resolver (`dns.lookup`, as `/etc/hosts` and the machine's resolver see names) for
 * the names burrowd is given by others: webhook receivers, OAuth client documents. `dns.lookup`
 * holds one of libuv's four pool threads until the answer, and names whose nameservers never
 * answer hold it for the resolver's whole timeout; strangers can make burrowd look names up
 * (OAuth client ids, 120 a minute per node), so unbounded they could hold every thread, and
 * password hashing (which shares the pool, password-work.ts) would stop. At most two lookups run
 * at once; the rest wait their turn (taken fairly between accounts, lookup-turns.ts), at most
 * `LOOKUP_WAIT_MS`, then fail without running: a lookup whose caller (a connection attempt of
 * the same deadline) gave up must not hold a place later, or a stranger's names queued faster
 * than they time out would keep everyone's lookups waiting behind dead ones long after they
 * stopped. For the same reason a lookup whose caller stopped (burrowd stopping: its `signal`) is
 * dropped at once, and one already running is no longer waited for (`dns.lookup` cannot be
 * called off; its thread is freed when the resolver gives up).
 */
import { lookup as dnsLookup } from 'node:dns'
import type { LookupAddress } from 'node:dns'
import { LookupTurns } from './lookup-turns.js'

/** Lookups of others' names running at once: half of libuv's default pool. */
export const LOOKUPS_AT_ONCE = 2

/** How long a lookup waits for a place: the connect timeout of the guards' connections. */
export const LOOKUP_WAIT_MS = 10_000

/**
 * A lookup that was never run: every place stayed taken for as long as it could wait. It says
 * nothing of the name, only that burrowd's own lookups were busy (a webhook delivery so failed
 * is tried again later, uncounted).
 */
export class LookupBusyError extends Error {
  readonly code = 'ETIMEOUT'

  constructor(message: string) {
    super(message)
    this.name = 'LookupBusyError'
  }
}

/** What resolving takes: `dns.lookup` with `{ all: true }`. */
export type LookupAll = (
  hostname: string,
  options: { all: true },
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void

/** Who a lookup is asked for when the caller does not say (the OAuth guard says: the document's domain). */
export const SHARED_ASKER = 'shared'

/**
 * A bounded resolver: `who` is whose turn the lookup takes (lookup-turns.ts); `signal` is its
 * caller's end (burrowd stopping): aborted, the lookup leaves the queue unrun, or, running, stops
 * being waited for.
 */
export type BoundedResolve = (
  hostname: string,
  who?: string,
  signal?: AbortSignal,
  waitMs?: number,
) => Promise<readonly LookupAddress[]>

/**
 * A lookup dropped because its caller stopped (`signal` aborted): never run when it was still
 * waiting for a place; when it was running, its answer is no longer waited for.
 */
export class LookupDroppedError extends Error {
  readonly code = 'ECANCELLED'

  constructor(message: string) {
    super(message)
    this.name = 'LookupDroppedError'
  }
}

/**
 * A resolver through `lookup` running at most `atOnce` lookups at a time, in fair turns between
 * askers (lookup-turns.ts); one that waited `waitMs` for a place fails (`LookupBusyError`, code
 * `ETIMEOUT`) and is dropped. `now` is the clock that times lookups and how long askers stay slow.
 */
export function boundedResolve(
  lookup: LookupAll,
  atOnce: number = LOOKUPS_AT_ONCE,
  waitMs: number = LOOKUP_WAIT_MS,
  now: () => number = Date.now,
): BoundedResolve {
  const turns = new LookupTurns(atOnce, now)
  const stops = new StopListeners()
  return (hostname, who = SHARED_ASKER, signal, callerWaitMs = waitMs) =>
    new Promise((resolve, reject) => {
      const wait = Math.min(waitMs, callerWaitMs)
      if (signal?.aborted) {
        reject(new LookupDroppedError(`lookup of ${hostname} not made: its caller stopped`))
        return
      }
      const go = () => {
        clearTimeout(timer)
        const started = now()
        try {
          lookup(hostname, { all: true }, (error, addresses) => {
            // The place is given back when the lookup ends, waited for or not: it held a thread.
            forget()
            turns.done(who, started, error)
            if (error) reject(error)
            else resolve(addresses)
          })
        } catch (error) {
          // A resolver that throws ends as a failed lookup: the caller is told, and the
          // place is given back (lookup-turns.ts) whether this was run by `ask` or by an answer.
          forget()
          reject(error instanceof Error ? error : new Error(String(error)))
          throw error
        }
      }
      const timer = setTimeout(() => {
        forget()
        leave()
        reject(new LookupBusyError(`lookup of ${hostname} waited ${wait} ms for a place`))
      }, wait)
      timer.unref?.()
      const forget = stops.add(signal, () => {
        clearTimeout(timer)
        leave()
        reject(new LookupDroppedError(`lookup of ${hostname} dropped: its caller stopped`))
      })
      const leave = turns.ask(who, go)
    })
}

/**
 * What to do when each signal aborts: one listener per signal, however many lookups it has
 * (a guard's signal lives as long as burrowd, and its lookups are many).
 */
class StopListeners {
  readonly #bySignal = new WeakMap<AbortSignal, Set<() => void>>()

  /** Call `stop` when `signal` aborts, until the returned function is called. */
  add(signal: AbortSignal | undefined, stop: () => void): () => void {
    if (signal === undefined) return () => {}
    let stops = this.#bySignal.get(signal)
    if (stops === undefined) {
      const mine = new Set<() => void>()
      stops = mine
      this.#bySignal.set(signal, mine)
      signal.addEventListener('abort', () => {
        for (const each of [...mine]) each()
        mine.clear()
      })
    }
    const set = stops
    set.add(stop)
    return () => void set.delete(stop)
  }
}

/** The process's resolver for others' names (every guard shares its two places). */
export const systemResolve = boundedResolve(dnsLookup)
