/**
 * Whether a request admitted on `label` would still be routed to the same tunnel now: the tunnel
 * exists under that name, serves (its plan did not stop it), and, for a custom domain, the domain
 * still routes to it and the plan still serves it. The access gate's re-check of open streams
 * asks this too, so that a GET stream on a domain its owner removed, or of a tunnel the plan
 * stopped, ends within the re-check's period instead of running for as long as it stays open.
 */
import type { CustomHost } from './edge-options.js'
import type { TunnelWithAccount } from '../store/store.js'

/** Where the edge looks tunnels up by label. */
export interface LabelLookup {
  byLabel(label: string): Promise<TunnelWithAccount | null>
}

/** True while `label` (and `custom`, when the request came on a custom domain) routes to `tunnelId`. */
export async function stillRouted(
  lookup: LabelLookup,
  label: string,
  tunnelId: string,
  custom: CustomHost | undefined,
): Promise<boolean> {
  const now = await lookup.byLabel(label)
  if (now === null || now.id !== tunnelId || !now.serving) return false
  if (custom === undefined) return true
  if (custom.gate(now) !== null) return false
  return custom.stillRoutes === undefined ? true : custom.stillRoutes(now)
}
