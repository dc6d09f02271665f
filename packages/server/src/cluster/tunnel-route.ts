/**
 * Where a request for a tunnel goes: a stream opener, through this node's own client of the
 * tunnel or (cluster-router.ts) on the node holding it.
 */
import type { MuxStream, RequestHead } from '@burrow/protocol'
import type { TunnelLink } from '../broker/tunnel-link.js'
import type { TunnelRegistry } from '../broker/tunnel-registry.js'

/** Where a request for a tunnel goes: a stream opener, local or on the holding node. */
export interface TunnelRoute {
  /** `local` when this node holds the client, else the holder's node id. */
  readonly via: string
  open(head: RequestHead, body: Uint8Array | undefined, fin: boolean): MuxStream
}

/** The route through this node's own client of `tunnelId`, waiting up to `waitMs` for it. */
export async function localRoute(
  registry: TunnelRegistry,
  tunnelId: string,
  waitMs: number,
): Promise<TunnelRoute | null> {
  const link = await registry.route(tunnelId, waitMs)
  return link === null ? null : linkRoute(link)
}

/**
 * The route to `tunnelId` through this node's own client when it is connected here now, without
 * waiting; null otherwise. Every router sends a request there first.
 */
export function localRouteNow(registry: TunnelRegistry, tunnelId: string): TunnelRoute | null {
  const link = registry.activeLink(tunnelId)
  return link === null ? null : linkRoute(link)
}

/** One route per link, made once: every request through the link takes it. */
const linkRoutes = new WeakMap<TunnelLink, TunnelRoute>()

function linkRoute(link: TunnelLink): TunnelRoute {
  let route = linkRoutes.get(link)
  if (route === undefined) {
    route = { via: 'local', open: (head, body, fin) => link.mux.open(head, body, fin) }
    linkRoutes.set(link, route)
  }
  return route
}
