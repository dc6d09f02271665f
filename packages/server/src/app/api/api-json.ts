/**
 * How the JSON API writes accounts, tunnels, billing, tokens and webhook endpoints
 * (snake_case fields, ISO-8601 UTC times), as docs/api.md documents them.
 */
import { accessHeaders, clientSnippet } from '@burrow/protocol'
import { PLANS } from '../../plans.js'
import type { BillingView } from '../billing-view.js'
import type { TokenView } from '../token-view.js'
import type { TunnelWithAccess } from '../tunnel-view.js'
import type { AccountView } from '../web-services.js'
import type { WebhookDeliveryView, WebhookEndpointView } from '../webhook-endpoint-view.js'

function iso(at: Date | null): string | null {
  return at === null ? null : at.toISOString()
}

/** `GET /api/account`. */
export function accountJson(a: AccountView) {
  return {
    id: a.id,
    email: a.email,
    slug: a.slug,
    plan: a.plan,
    plan_expires_at: iso(a.planExpiresAt),
  }
}

/** One tunnel; its snippet carries the agent-token header (a placeholder) when it wants one. */
export function tunnelJson(t: TunnelWithAccess) {
  return {
    id: t.id,
    name: t.name,
    subdomain: t.subdomain,
    public_url: t.publicUrl,
    mcp_url: `${t.publicUrl}/mcp`,
    online: t.online,
    serving: t.serving,
    pinned: t.pinned,
    created_at: iso(t.createdAt),
    last_seen_at: iso(t.lastSeenAt),
    snippet: clientSnippet(t.publicUrl, t.name, accessHeaders(t.accessMode)),
  }
}

/** `GET /api/billing`: the plan's state, the three meters and the billing history. */
export function billingJson(b: BillingView) {
  const plan = PLANS[b.plan]
  const m = b.meters
  return {
    plan: b.plan,
    state: b.state,
    cycle: b.cycle,
    renews_at: iso(b.renewsAt),
    ends_at: iso(b.endsAt),
    meters: {
      period: m.period,
      snapshot_taken_at: iso(m.takenAt),
      resets_at: iso(m.resetsAt),
      data_transfer: {
        limit_bytes_per_tunnel: plan.bandwidthBytesPerMonth,
        used_bytes: m.tunnels.reduce((sum, t) => sum + t.bandwidthBytes, 0),
        tunnels: m.tunnels.map((t) => ({
          tunnel_id: t.tunnelId,
          name: t.name,
          used_bytes: t.bandwidthBytes,
        })),
      },
      tool_calls: {
        limit_per_tunnel: plan.toolCallsPerMonth,
        used: m.tunnels.reduce((sum, t) => sum + t.toolCalls, 0),
        tunnels: m.tunnels.map((t) => ({ tunnel_id: t.tunnelId, name: t.name, used: t.toolCalls })),
      },
      tunnel_allowance: { used: b.tunnelCount, limit: plan.tunnels },
    },
    charged_back_at: iso(b.chargedBackAt),
    history: b.history.map((h) => ({ at: iso(h.at), event: h.kind })),
  }
}

/** One API token (never its secret). */
export function tokenJson(t: TokenView) {
  return { id: t.id, name: t.name, created_at: iso(t.createdAt), last_used_at: iso(t.lastUsedAt) }
}

/** One webhook endpoint, with its signing secret (its owner needs it to verify deliveries). */
export function webhookEndpointJson(e: WebhookEndpointView) {
  return {
    id: e.id,
    url: e.url,
    events: e.events,
    ...(e.secret !== undefined ? { secret: e.secret } : {}),
    ...(e.previousSecretExpiresAt !== undefined
      ? { previous_secret_expires_at: iso(e.previousSecretExpiresAt) }
      : {}),
    created_at: iso(e.createdAt),
    disabled_at: iso(e.disabledAt),
    disabled_reason: e.disabledReason,
  }
}

/** One delivery in an endpoint's log. */
export function webhookDeliveryJson(d: WebhookDeliveryView) {
  return {
    id: d.id,
    type: d.type,
    status: d.status,
    attempts: d.attempts,
    created_at: iso(d.createdAt),
    last_attempt_at: iso(d.lastAttemptAt),
    last_status: d.lastStatus,
    last_error: d.lastError,
    next_attempt_at: iso(d.nextAttemptAt),
  }
}
