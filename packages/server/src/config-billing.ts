/**
 * burrowd's payment settings, read by `loadConfig` from the `BURROW_BILLING_PROVIDER` and
 * `BURROW_PADDLE_*` variables: Paddle with its key, webhook secrets, price ids and client-side
 * token, or the `dev` stand-in. Bad values are refused with a `ConfigError` naming the variable.
 */
import type { BillingConfig, PriceKey } from './billing/billing-config.js'
import { PRICE_KEYS } from './billing/billing-config.js'
import { ConfigError } from './config-error.js'
import { bad, httpUrlOf, read, type Env } from './config-env.js'

/**
 * How burrowd takes payments: Paddle with its API key, webhook secrets and prices, or the `dev`
 * provider (a local stand-in whose key, secret and prices burrowd makes itself at start-up).
 */
export type BillingSettings =
  | {
      readonly provider: 'dev'
      /** True when `BURROW_BILLING_PROVIDER=dev` asked for it (not the fallback of no API key). */
      readonly chosen?: true
    }
  | ({
      readonly provider: 'paddle'
      /** Paddle.js client-side token for the checkout page (`BURROW_PADDLE_CLIENT_TOKEN`). */
      readonly clientToken: string | null
    } & Omit<BillingConfig, 'provider'>)

/** Paddle's live API; the sandbox is `https://sandbox-api.paddle.com`. */
const PADDLE_API_URL = 'https://api.paddle.com'

/** The variable that holds each price id. */
const PRICE_VARIABLES: Readonly<Record<PriceKey, string>> = {
  pro_monthly: 'BURROW_PADDLE_PRICE_PRO_MONTHLY',
  pro_annual: 'BURROW_PADDLE_PRICE_PRO_ANNUAL',
  scale_monthly: 'BURROW_PADDLE_PRICE_SCALE_MONTHLY',
  scale_annual: 'BURROW_PADDLE_PRICE_SCALE_ANNUAL',
}

/** The payment provider and its settings from `env` (`BURROW_BILLING_PROVIDER`, `BURROW_PADDLE_*`). */
export function parseBillingSettings(env: Env): BillingSettings {
  const apiKey = read(env, 'BURROW_PADDLE_API_KEY')
  const chosen = read(env, 'BURROW_BILLING_PROVIDER')
  const provider = chosen?.toLowerCase() ?? (apiKey === undefined ? 'dev' : 'paddle')
  if (provider === 'dev') return Object.freeze(chosen ? { provider, chosen: true } : { provider })
  if (provider !== 'paddle') throw bad('BURROW_BILLING_PROVIDER', chosen ?? '', 'paddle or dev')
  const need = (variable: string, what: string): string => {
    const value = read(env, variable)
    if (value === undefined) {
      throw new ConfigError(
        variable,
        `${variable} is not set; the paddle billing provider needs ${what} (or set BURROW_BILLING_PROVIDER=dev)`,
      )
    }
    return value
  }
  const paddleKey = need(
    'BURROW_PADDLE_API_KEY',
    'a Paddle API key (Paddle > Developer tools > Authentication)',
  )
  const secrets = need(
    'BURROW_PADDLE_WEBHOOK_SECRETS',
    "the notification destination's secret key (pdl_ntfset_…; several comma-separated while rotating)",
  )
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
  if (secrets.length === 0) {
    // The value is not echoed: it may hold part of a secret.
    throw new ConfigError(
      'BURROW_PADDLE_WEBHOOK_SECRETS',
      'BURROW_PADDLE_WEBHOOK_SECRETS holds no secret; expected one or more separated by commas',
    )
  }
  const prices = {} as Record<PriceKey, string>
  const seen = new Map<string, string>()
  for (const key of PRICE_KEYS) {
    const variable = PRICE_VARIABLES[key]
    const id = need(variable, `the Paddle price id of ${key.replace('_', ' ')}`)
    if (!/^pri_[A-Za-z0-9_]+$/.test(id)) {
      throw bad(variable, id, 'a Paddle price id such as pri_01h…')
    }
    const other = seen.get(id)
    if (other !== undefined) throw bad(variable, id, `a price id different from ${other}'s`)
    seen.set(id, variable)
    prices[key] = id
  }
  return Object.freeze({
    provider,
    apiUrl: parsePaddleApiUrl(read(env, 'BURROW_PADDLE_API_URL') ?? PADDLE_API_URL),
    apiKey: paddleKey,
    webhookSecrets: Object.freeze(secrets),
    prices: Object.freeze(prices),
    clientToken: parseClientToken(read(env, 'BURROW_PADDLE_CLIENT_TOKEN')),
  })
}

function parseClientToken(value: string | undefined): string | null {
  if (value === undefined) return null
  if (!/^(live|test)_[A-Za-z0-9]+$/.test(value)) {
    throw bad(
      'BURROW_PADDLE_CLIENT_TOKEN',
      value,
      'a Paddle client-side token: live_… (or test_… for the sandbox)',
    )
  }
  return value
}

function parsePaddleApiUrl(value: string): string {
  const url = httpUrlOf(value)
  if (url === null || url.search !== '') {
    throw bad(
      'BURROW_PADDLE_API_URL',
      value,
      'the base URL of the Paddle API: https://api.paddle.com or https://sandbox-api.paddle.com',
    )
  }
  return url.href.replace(/\/+$/, '')
}
