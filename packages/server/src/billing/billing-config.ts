/**
 * What billing is configured with, and the names it shares: paid plans, billing cycles, the four
 * provider prices and the table that maps a provider's price id back to a plan and cycle. The
 * `dev` provider uses fixed price ids and secrets it generates and keeps in the settings table.
 */

import { randomBytes } from 'node:crypto'

/** The plans a customer can buy (Free is what they have without a subscription). */
export type PaidPlanId = 'pro' | 'scale'

/** Paid plan ids, cheapest first. */
export const PAID_PLAN_IDS: readonly PaidPlanId[] = ['pro', 'scale']

/** How often a subscription is billed. */
export type BillingCycle = 'monthly' | 'annual'

/** Billing cycles, shortest first. */
export const BILLING_CYCLES: readonly BillingCycle[] = ['monthly', 'annual']

/** One of the four prices set up at the provider: a paid plan and a cycle. */
export type PriceKey = `${PaidPlanId}_${BillingCycle}`

/** The four price keys, in the order `docs/configuration.md` lists them. */
export const PRICE_KEYS: readonly PriceKey[] = [
  'pro_monthly',
  'pro_annual',
  'scale_monthly',
  'scale_annual',
]

/**
 * Who takes the money: `paddle` (Paddle Billing, the merchant of record) or `dev` (burrowd's own
 * stand-in for Paddle's API, `paddle-stand-in.ts`: a local checkout where no money moves).
 */
export type BillingProvider = 'paddle' | 'dev'

/** Everything the billing service needs to talk to its provider. */
export interface BillingConfig {
  readonly provider: BillingProvider
  /** Base URL of the Paddle API, e.g. `https://api.paddle.com` (no trailing slash needed). */
  readonly apiUrl: string
  /** Paddle API key, sent as `Authorization: Bearer …`. */
  readonly apiKey: string
  /**
   * Secrets of the notification destination (`pdl_ntfset_…`). Several while one is being
   * rotated: a webhook signed with any of them is accepted.
   */
  readonly webhookSecrets: readonly string[]
  /** The provider's price id (`pri_…`) for each plan and cycle. */
  readonly prices: Readonly<Record<PriceKey, string>>
}

/** A plan and cycle, what one price id stands for. */
export interface PricedPlan {
  readonly plan: PaidPlanId
  readonly cycle: BillingCycle
}

/** Provider price id to the plan and cycle it sells. */
export type PriceTable = ReadonlyMap<string, PricedPlan>

/** The key of the price for `plan` billed every `cycle`. */
export function priceKey(plan: PaidPlanId, cycle: BillingCycle): PriceKey {
  return `${plan}_${cycle}`
}

/** The price table for configured prices. */
export function priceTable(prices: Readonly<Record<PriceKey, string>>): PriceTable {
  const table = new Map<string, PricedPlan>()
  for (const plan of PAID_PLAN_IDS) {
    for (const cycle of BILLING_CYCLES) table.set(prices[priceKey(plan, cycle)], { plan, cycle })
  }
  return table
}

/** The fixed price ids of the `dev` provider. */
export const DEV_PRICES: Readonly<Record<PriceKey, string>> = Object.freeze({
  pro_monthly: 'pri_dev_pro_monthly',
  pro_annual: 'pri_dev_pro_annual',
  scale_monthly: 'pri_dev_scale_monthly',
  scale_annual: 'pri_dev_scale_annual',
})

/** Where burrowd mounts the dev provider's stand-in for Paddle, on its own port. */
export const DEV_PADDLE_PREFIX = '/dev/paddle'

/** Settings-table keys of the dev provider's generated secrets. */
const DEV_WEBHOOK_SECRET_SETTING = 'dev_paddle_webhook_secret'
const DEV_API_KEY_SETTING = 'dev_paddle_api_key'

/** What `devBillingConfig` needs of the store. */
export interface SettingsStore {
  setSettingIfAbsent(key: string, value: string): Promise<string>
}

/**
 * The `dev` provider's configuration: the API is burrowd's own stand-in at
 * `<selfUrl>/dev/paddle`, the prices are `DEV_PRICES`, and the API key and webhook secret are
 * generated once and kept in the settings table, so every node of a cluster shares them and they
 * survive restarts. `selfUrl` is how burrowd reaches itself, e.g. `http://127.0.0.1:7100`.
 */
export async function devBillingConfig(
  store: SettingsStore,
  selfUrl: string,
): Promise<BillingConfig> {
  const webhookSecret = await store.setSettingIfAbsent(
    DEV_WEBHOOK_SECRET_SETTING,
    'pdl_ntfset_dev_' + randomBytes(24).toString('base64url'),
  )
  const apiKey = await store.setSettingIfAbsent(
    DEV_API_KEY_SETTING,
    'pdl_dev_apikey_' + randomBytes(24).toString('base64url'),
  )
  return Object.freeze({
    provider: 'dev',
    apiUrl: selfUrl.replace(/\/+$/, '') + DEV_PADDLE_PREFIX,
    apiKey,
    webhookSecrets: Object.freeze([webhookSecret]),
    prices: DEV_PRICES,
  })
}
