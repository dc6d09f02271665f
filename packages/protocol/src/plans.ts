/**
 * The plan catalog (spec §2.1): the one table of prices and quotas that enforcement, the JSON API,
 * the billing page and the pricing page all read.
 */

/** Identifier of a plan as stored on an account. */
export type PlanId = 'free' | 'pro' | 'scale'

/** All plan ids, cheapest first. */
export const PLAN_IDS: readonly PlanId[] = ['free', 'pro', 'scale']

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
  },
})

/** True when `value` names a plan. */
export function isPlanId(value: string): value is PlanId {
  return (PLAN_IDS as readonly string[]).includes(value)
}
