/**
 * `GET /api/plans`: the plan catalog as JSON (documented in docs/api.md). Built from the one
 * catalog in @burrow/protocol that enforcement and both pages read, so they cannot disagree.
 */
import { GOVERNANCE_FEATURES, PLAN_IDS, PLANS, type Plan } from '../../plans.js'

/** One plan as the API returns it. */
export interface PlanJson {
  readonly id: string
  readonly name: string
  readonly tagline: string
  readonly price_usd: { readonly monthly: number; readonly annual: number }
  readonly quotas: {
    readonly bandwidth_bytes_per_month: number
    readonly tool_calls_per_month: number
    readonly tunnels: number
    readonly concurrent_sessions_per_tunnel: number
    readonly history_retention_hours: number
  }
  readonly custom_domains: boolean
  readonly governance: boolean
  readonly features: readonly string[]
}

/** The body of `GET /api/plans`. */
export interface PlansJson {
  readonly currency: 'USD'
  readonly billing_cycles: readonly ['monthly', 'annual']
  readonly governance_features: readonly string[]
  readonly plans: readonly PlanJson[]
}

/** One plan in API form. */
export function planJson(plan: Plan): PlanJson {
  return {
    id: plan.id,
    name: plan.name,
    tagline: plan.tagline,
    price_usd: { monthly: plan.priceMonthlyUsd, annual: plan.priceAnnualUsd },
    quotas: {
      bandwidth_bytes_per_month: plan.bandwidthBytesPerMonth,
      tool_calls_per_month: plan.toolCallsPerMonth,
      tunnels: plan.tunnels,
      concurrent_sessions_per_tunnel: plan.sessionsPerTunnel,
      history_retention_hours: plan.historyRetentionHours,
    },
    custom_domains: plan.customDomains,
    governance: true,
    features: plan.features,
  }
}

/** The whole catalog in API form, cheapest plan first. */
export function plansJson(): PlansJson {
  return {
    currency: 'USD',
    billing_cycles: ['monthly', 'annual'],
    governance_features: GOVERNANCE_FEATURES,
    plans: PLAN_IDS.map((id) => planJson(PLANS[id])),
  }
}
