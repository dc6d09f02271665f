/** What the edge is given (`EdgeOptions`), and the rules a custom domain adds to a request. */
import type { Logger, PolicyCode } from '@burrow/protocol'
import type { AccessGate } from '../access/access-gate.js'
import type { TunnelRegistry } from '../broker/tunnel-registry.js'
import type { TunnelRoute } from '../cluster/tunnel-route.js'
import type { CallRateLimits } from '../governance/call-rate-limits.js'
import type { Policies } from '../governance/policies.js'
import type { ToolPins } from '../governance/tool-pins.js'
import type { BodyBudget } from '../http/body-budget.js'
import type { ClientAddresses } from '../http/client-addresses.js'
import type { CallHistorySink } from '../quota/call-history.js'
import type { EdgeSessions } from '../quota/edge-sessions.js'
import type { QuotaGate } from '../quota/quota-gate.js'
import type { TunnelWithAccount } from '../store/store.js'
import type { AnswerBudget } from './answer-budget.js'
import type { CallContinuations } from './call-continuations.js'
import type { PendingListings } from './pending-listings.js'
import type { TunnelLookup } from './tunnel-lookup.js'

/** What the edge needs. */
export interface EdgeOptions {
  readonly lookup: TunnelLookup
  readonly registry: TunnelRegistry
  readonly maxBodyBytes: number
  readonly queueWaitMs: number
  readonly publicScheme: string
  /** Who sent a request, behind the trusted proxies (for X-Forwarded-For); loopback ones by default. */
  readonly addresses?: ClientAddresses
  readonly log: Logger
  /** Monthly quotas; null or absent when they are off (`BURROW_QUOTAS=off`). */
  readonly quotas?: QuotaGate | null
  /** The per-tunnel session cap; null or absent when quotas are off. */
  readonly sessions?: EdgeSessions | null
  /** Where answered JSON-RPC requests are recorded; null or absent for none. */
  readonly history?: CallHistorySink | null
  /** Tunnels' governance policies; null or absent to apply none. */
  readonly policies?: Policies | null
  /** Rug-pull protection's pins; null or absent to pin nothing. */
  readonly pins?: ToolPins | null
  /** Where the policies' rate-limit buckets live; null or absent for no rate limits. */
  readonly rateLimits?: CallRateLimits | null
  /** The `requestState`s of 2026-07-28 answers asking for input; one of its own by default. */
  readonly continuations?: CallContinuations
  /**
   * Where requests for a tunnel go (several nodes: to the node holding it); this node's
   * registry by default.
   */
  readonly router?: { route(tunnelId: string, waitMs: number): Promise<TunnelRoute | null> }
  /** Who may call each tunnel (access modes, allowlists); null or absent: everyone. */
  readonly access?: AccessGate | null
  /** Bounds on request body bytes in reading at once; the defaults of `BodyBudget` if absent. */
  readonly bodies?: BodyBudget
  /** Bounds on bytes of answer copies held at once; the defaults of `AnswerBudget` if absent. */
  readonly answers?: AnswerBudget
  /** The listings in flight (shared with the other nodes); this node's alone if absent. */
  readonly listings?: PendingListings
}

/**
 * An extra admission rule for one request, checked with the tunnel's own plan rules (a custom
 * domain's plan): the refusal to answer, or null to go on.
 */
export type HostGate = (
  tunnel: TunnelWithAccount,
) => { readonly code: PolicyCode; readonly message: string; readonly reason: string } | null

/** A custom domain a request came in on. */
export interface CustomHost {
  /** `https://<domain>[:port]`: the resource its agents' OAuth tokens are bound to. */
  readonly origin: string
  readonly gate: HostGate
  /** Whether the domain still routes to `tunnel` (open streams are checked again with it). */
  readonly stillRoutes?: (tunnel: TunnelWithAccount) => Promise<boolean>
}
