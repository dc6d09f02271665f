/**
 * With several nodes, the keys of the clients connected to this node are checked against the
 * database every `everyMs`: a client whose key was rotated, or whose tunnel was deleted, is cut
 * off as the `disconnect` cluster event would have. The event is the rule and applies at once;
 * this is for a node that missed it (Redis pub/sub delivers at most once, and nothing to a node
 * that is reconnecting to Redis, nor from one that cannot reach it), which otherwise let the old
 * key's client serve the tunnel for as long as it stayed connected. One query per round.
 */
import type { Logger } from '@burrow/protocol'
import type { TunnelRegistry } from './tunnel-registry.js'

/** How often the keys are checked, by default. */
export const KEY_RECHECK_MS = 10_000

/** Tunnels whose keys one query reads. */
const PER_QUERY = 1000

/** Options of `startKeyRecheck`. */
export interface KeyRecheckOptions {
  readonly registry: TunnelRegistry
  /** The key hash of each tunnel that still exists (store/tunnel-key-hashes.ts). */
  readonly keyHashes: (tunnelIds: readonly string[]) => Promise<ReadonlyMap<string, string>>
  readonly log: Logger
  readonly everyMs?: number
}

/** Check the connected clients' keys now and then, until `stop`. */
export function startKeyRecheck(opts: KeyRecheckOptions): { stop(): void } {
  let running = false
  const timer = setInterval(() => {
    if (running) return
    running = true
    void recheckKeys(opts)
      .catch((err: Error) => opts.log.warn(`checking the connected clients' keys: ${err.message}`))
      .finally(() => (running = false))
  }, opts.everyMs ?? KEY_RECHECK_MS)
  timer.unref()
  return { stop: () => clearInterval(timer) }
}

/** One round: cut off the connections whose key no longer opens their tunnel. */
export async function recheckKeys(opts: KeyRecheckOptions): Promise<number> {
  const { registry } = opts
  // Connections whose key check began from now on may hold a key newer than what is read.
  const before = registry.now()
  const ids = [...new Set(registry.connectionKeys().map((k) => k.tunnelId))]
  let cut = 0
  for (let i = 0; i < ids.length; i += PER_QUERY) {
    const chunk = ids.slice(i, i + PER_QUERY)
    const hashes = await opts.keyHashes(chunk)
    for (const id of chunk) {
      cut += registry.cutStaleKeys(
        id,
        hashes.get(id) ?? null,
        before,
        'the tunnel key was rotated or the tunnel deleted',
      )
    }
  }
  return cut
}
