/**
 * The plan catalog: the one table of prices and quotas that enforcement, the JSON API
 * (`GET /api/plans`, docs/api.md#plans), the billing page and the pricing page all read. The
 * README's table (README.md#plans-quotas-and-the-api) shows the same numbers.
 */

/** Identifier of a plan as stored on an account. */
export type PlanId = 'free' | 'pro' | 'scale'

/** All plan ids, cheapest first. */
export const PLAN_IDS: readonly PlanId[] = ['free', 'pro', 'scale']

/** How often a paid plan is billed. */
export type BillingCycle = 'monthly' | 'annual'

/** Both billing cycles. */
export const BILLING_CYCLES: readonly BillingCycle[] = ['monthly', 'annual']

/** Governance features every plan has, Free included. */
export const GOVERNANCE_FEATURES: readonly string[] = [
  'Per-tool JSON-RPC inspection',
  'Allow/deny tool policy',
  'Rate limits',
  'Field-level redaction',
  'Per-method metrics',
  'Rug-pull alerts',
  'Zero-knowledge mode',
]

/** One plan: prices in US dollars, quotas per tunnel or per account as named. */
export interface Plan {
  readonly id: PlanId
  readonly name: string
  readonly priceMonthlyUsd: number
  readonly priceAnnualUsd: number
  /** Bytes per tunnel per calendar month (decimal GB, as sold). */
  readonly bandwidthBytesPerMonth: number
  /** tools/call requests per tunnel per calendar month. */
  readonly toolCallsPerMonth: number
  /** Tunnels per account. */
  readonly tunnels: number
  /** Concurrent MCP sessions per tunnel. */
  readonly sessionsPerTunnel: number
  /** Call history retention in hours. */
  readonly historyRetentionHours: number
  /** Custom domains allowed (Pro and above). */
  readonly customDomains: boolean
  /** One line saying who the plan is for, on the pricing and billing pages. */
  readonly tagline: string
  /** Feature copy beyond the quotas, as the pricing and billing pages list it. */
  readonly features: readonly string[]
}

const GB = 1_000_000_000

/** The catalog, keyed by id. */
export const PLANS: Readonly<Record<PlanId, Plan>> = Object.freeze({
  free: {
    id: 'free',
    name: 'Free',
    priceMonthlyUsd: 0,
    priceAnnualUsd: 0,
    bandwidthBytesPerMonth: 5 * GB,
    toolCallsPerMonth: 100_000,
    tunnels: 2,
    sessionsPerTunnel: 3,
    historyRetentionHours: 24,
    customDomains: false,
    tagline: 'For trying Burrow and personal servers.',
    features: ['Governance on every plan', 'No interstitial page'],
  },
  pro: {
    id: 'pro',
    name: 'Pro',
    priceMonthlyUsd: 12,
    priceAnnualUsd: 120,
    bandwidthBytesPerMonth: 25 * GB,
    toolCallsPerMonth: 1_000_000,
    tunnels: 5,
    sessionsPerTunnel: 10,
    historyRetentionHours: 30 * 24,
    customDomains: true,
    tagline: 'For developers whose agents rely on their servers every day.',
    features: [
      'Governance on every plan',
      'Custom domains (one per account)',
      'No interstitial page',
    ],
  },
  scale: {
    id: 'scale',
    name: 'Scale',
    priceMonthlyUsd: 39,
    priceAnnualUsd: 390,
    bandwidthBytesPerMonth: 100 * GB,
    toolCallsPerMonth: 5_000_000,
    tunnels: 20,
    sessionsPerTunnel: 25,
    historyRetentionHours: 60 * 24,
    customDomains: true,
    tagline: 'For teams sharing many servers with many agents.',
    features: [
      'Governance on every plan',
      'Custom domains (one per tunnel)',
      'No interstitial page',
    ],
  },
})

/** True when `value` names a plan. */
export function isPlanId(value: string): value is PlanId {
  return (PLAN_IDS as readonly string[]).includes(value)
}
