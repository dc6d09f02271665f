/**
 * A small client for the part of Paddle Billing's API that burrowd uses: customers (found or made
 * by email), a transaction to pay at checkout, and a subscription's read, cancellation and item
 * change. It talks to any base URL with a bearer API key, so the same client drives Paddle, its
 * sandbox and the dev provider's stand-in. Every failure is a `PaddleApiError` that says which
 * call failed and why.
 */

import { parseUpdateSummary, type Proration } from './proration.js'
import { parsePaddleSubscription, PaddleEventError } from './paddle-event.js'
import type { PaddleSubscription } from './paddle-event.js'

/** How a plan or cycle change is charged (Paddle's `proration_billing_mode`). */
export type ProrationBillingMode =
  | 'prorated_immediately'
  | 'prorated_next_billing_period'
  | 'full_immediately'
  | 'full_next_billing_period'
  | 'do_not_bill'

/** A transaction made for checkout. */
export interface PaddleTransaction {
  /** `txn_…`. */
  readonly id: string
  readonly status: string
  /** The payment link (`…?_ptxn=txn_…`); null when the seller has no default payment link. */
  readonly checkoutUrl: string | null
}

/** Options of `new PaddleClient`. */
export interface PaddleClientOptions {
  /** e.g. `https://api.paddle.com`, `https://sandbox-api.paddle.com`. */
  readonly apiUrl: string
  readonly apiKey: string
  /** Deadline of one call (default 10 s). */
  readonly timeoutMs?: number
}

/** A call to the Paddle API that failed; `status` 0 when no answer came. */
export class PaddleApiError extends Error {
  /** The HTTP status, or 0 when Paddle could not be reached or answered nonsense. */
  readonly status: number
  /** Paddle's error code (e.g. `not_found`), or `unreachable` / `bad_response`. */
  readonly code: string

  constructor(status: number, code: string, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'PaddleApiError'
    this.status = status
    this.code = code
  }
}

const DEFAULT_TIMEOUT_MS = 10_000

/** Calls Paddle's API. */
export class PaddleClient {
  readonly #apiUrl: string
  readonly #apiKey: string
  readonly #timeoutMs: number

  constructor(options: PaddleClientOptions) {
    this.#apiUrl = options.apiUrl.replace(/\/+$/, '')
    this.#apiKey = options.apiKey
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
  }

  /** The id (`ctm_…`) of the customer with this email, made if there is none. */
  async findOrCreateCustomer(email: string): Promise<string> {
    const existing = await this.#findCustomer(email)
    if (existing !== null) return existing
    try {
      return field(await this.#request('POST', '/customers', { email }), 'id', 'POST /customers')
    } catch (error) {
      // Made by a concurrent checkout between our search and our create: use that one.
      if (error instanceof PaddleApiError && error.status === 409) {
        const raced = await this.#findCustomer(email)
        if (raced !== null) return raced
      }
      throw error
    }
  }

  async #findCustomer(email: string): Promise<string | null> {
    const path = `/customers?email=${encodeURIComponent(email)}`
    const list = await this.#request('GET', path)
    if (!Array.isArray(list)) throw badResponse(`GET /customers`, 'data is not a list')
    const first: unknown = list[0]
    return first === undefined ? null : field(first, 'id', 'GET /customers')
  }

  /**
   * A transaction for one unit of `priceId`, with `account_id` in its custom data (Paddle copies
   * it to the subscription and every webhook about it).
   */
  async createTransaction(input: {
    readonly priceId: string
    readonly accountId: string
    readonly customerId?: string | null
  }): Promise<PaddleTransaction> {
    const data = await this.#request('POST', '/transactions', {
      items: [{ price_id: input.priceId, quantity: 1 }],
      custom_data: { account_id: input.accountId },
      collection_mode: 'automatic',
      ...(input.customerId ? { customer_id: input.customerId } : {}),
    })
    const what = 'POST /transactions'
    const checkout = (data as { checkout?: unknown }).checkout
    const url =
      typeof checkout === 'object' && checkout !== null
        ? (checkout as { url?: unknown }).url
        : undefined
    return {
      id: field(data, 'id', what),
      status: field(data, 'status', what),
      checkoutUrl: typeof url === 'string' && url !== '' ? url : null,
    }
  }

  /**
   * Void a transaction not paid yet (`status: canceled`), so its checkout can no longer be paid.
   * Paddle refuses (4xx) for one that is billed or completed.
   */
  async cancelTransaction(id: string): Promise<void> {
    await this.#request('PATCH', `/transactions/${encodeURIComponent(id)}`, { status: 'canceled' })
  }

  /** The subscription as Paddle holds it now. */
  async getSubscription(id: string): Promise<PaddleSubscription> {
    return this.#subscription('GET', `/subscriptions/${encodeURIComponent(id)}`)
  }

  /**
   * Cancel at the end of the current billing period (a scheduled change; paid until then), or
   * `immediately`.
   */
  async cancelSubscription(
    id: string,
    effectiveFrom: 'next_billing_period' | 'immediately' = 'next_billing_period',
  ): Promise<PaddleSubscription> {
    return this.#subscription('POST', `/subscriptions/${encodeURIComponent(id)}/cancel`, {
      effective_from: effectiveFrom,
    })
  }

  /**
   * Replace the subscription's items with one unit of `priceId` (a plan or cycle change), billed
   * per `prorationBillingMode`. `removeScheduledChange` also drops a pending cancellation, which
   * Paddle requires before items change.
   */
  async updateSubscriptionItems(
    id: string,
    input: {
      readonly priceId: string
      readonly prorationBillingMode: ProrationBillingMode
      readonly removeScheduledChange?: boolean
    },
  ): Promise<PaddleSubscription> {
    return this.#subscription('PATCH', `/subscriptions/${encodeURIComponent(id)}`, {
      items: [{ price_id: input.priceId, quantity: 1 }],
      proration_billing_mode: input.prorationBillingMode,
      ...(input.removeScheduledChange ? { scheduled_change: null } : {}),
    })
  }

  /**
   * What `updateSubscriptionItems` with the same input would charge or credit, as Paddle
   * previews it (`PATCH /subscriptions/{id}/preview`); nothing changes.
   */
  async previewSubscriptionItems(
    id: string,
    input: {
      readonly priceId: string
      readonly prorationBillingMode: ProrationBillingMode
      readonly removeScheduledChange?: boolean
    },
  ): Promise<Proration> {
    const path = `/subscriptions/${encodeURIComponent(id)}/preview`
    const data = await this.#request('PATCH', path, {
      items: [{ price_id: input.priceId, quantity: 1 }],
      proration_billing_mode: input.prorationBillingMode,
      ...(input.removeScheduledChange ? { scheduled_change: null } : {}),
    })
    const summary = parseUpdateSummary(
      (data as { update_summary?: unknown } | null)?.update_summary,
    )
    if (typeof summary === 'string') throw badResponse(`PATCH ${path}`, summary)
    return summary
  }

  /** Drop a scheduled change (e.g. undo a cancellation before it takes effect). */
  async removeScheduledChange(id: string): Promise<PaddleSubscription> {
    return this.#subscription('PATCH', `/subscriptions/${encodeURIComponent(id)}`, {
      scheduled_change: null,
    })
  }

  async #subscription(method: string, path: string, body?: unknown): Promise<PaddleSubscription> {
    const data = await this.#request(method, path, body)
    try {
      return parsePaddleSubscription(data)
    } catch (error) {
      if (error instanceof PaddleEventError) throw badResponse(`${method} ${path}`, error.message)
      throw error
    }
  }

  /** Call the API and return the response's `data`. */
  async #request(method: string, path: string, body?: unknown): Promise<unknown> {
    const what = `${method} ${path.split('?', 1)[0]}`
    let res: Response
    try {
      res = await fetch(this.#apiUrl + path, {
        method,
        headers: {
          authorization: `Bearer ${this.#apiKey}`,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        redirect: 'error',
        signal: AbortSignal.timeout(this.#timeoutMs),
      })
    } catch (error) {
      throw new PaddleApiError(
        0,
        'unreachable',
        `Paddle API ${what} at ${this.#apiUrl} failed: ${describe(error)}; ` +
          'check BURROW_PADDLE_API_URL and the network',
        { cause: error },
      )
    }
    const text = await res.text().catch(() => '')
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {
      json = undefined
    }
    if (!res.ok) {
      const error = (json as { error?: { code?: unknown; detail?: unknown } } | undefined)?.error
      const code = typeof error?.code === 'string' ? error.code : `http_${res.status}`
      const detail = typeof error?.detail === 'string' ? error.detail : text.slice(0, 200)
      const hint =
        res.status === 401 || res.status === 403
          ? '; check BURROW_PADDLE_API_KEY and its permissions'
          : ''
      throw new PaddleApiError(
        res.status,
        code,
        `Paddle API ${what} answered ${res.status} ${code}: ${detail}${hint}`,
      )
    }
    if (typeof json !== 'object' || json === null || !('data' in json)) {
      throw badResponse(what, 'the body is not JSON with "data"')
    }
    return json.data
  }
}

function field(data: unknown, name: string, what: string): string {
  const value =
    typeof data === 'object' && data !== null ? (data as Record<string, unknown>)[name] : undefined
  if (typeof value !== 'string' || value === '') throw badResponse(what, `"${name}" is missing`)
  return value
}

function badResponse(what: string, problem: string): PaddleApiError {
  return new PaddleApiError(
    0,
    'bad_response',
    `Paddle API ${what} answered unexpectedly: ${problem}`,
  )
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? ` (${error.cause.message})` : ''
    return error.name === 'TimeoutError' ? 'no answer in time' : `${error.message}${cause}`
  }
  return String(error)
}
