/**
 * Accounts' webhook endpoints and their delivery logs, for the dashboard and the `/api/*`
 * routes. Every method takes the account it acts for and touches only that account's rows: an
 * endpoint of another account reads as "not found", exactly like one that does not exist.
 * Written once with Kysely for SQLite and PostgreSQL.
 */

import { randomBytes } from 'node:crypto'
import type { Kysely, Selectable } from 'kysely'
import { StoreError } from '../store/store-error.js'
import { lockAccount } from '../store/lock-account.js'
import { WEBHOOK_EVENT_TYPES, isWebhookEventType } from './webhook-event.js'
import type { WebhookEventType } from './webhook-event.js'
import { toDeliveryStatus } from './webhook-outbox.js'
import type { WebhookDeliveryStatus } from './webhook-outbox.js'
import type { Database, WebhookDeliveriesTable, WebhookEndpointsTable } from '../store/schema.js'
import { newWebhookSecret } from './webhook-secret.js'
import { registrationRefusal } from './url-guard.js'

/** Longest endpoint URL accepted, in characters. */
export const MAX_WEBHOOK_URL_LENGTH = 2000

/** How long a rotated-out secret keeps signing deliveries beside the new one. */
export const PREVIOUS_SECRET_SIGNS_MS = 24 * 60 * 60_000

/** Endpoints one account may register. */
export const MAX_ENDPOINTS_PER_ACCOUNT = 10

/** Most delivery-log entries one `deliveries` call returns. */
export const MAX_DELIVERIES_LISTED = 500

/** A registered endpoint, without its secret. */
export interface WebhookEndpoint {
  /** `we_` + 20 hex digits. */
  readonly id: string
  readonly accountId: string
  /** The normalised http(s) URL deliveries are POSTed to. */
  readonly url: string
  /** The event types it receives. */
  readonly events: readonly WebhookEventType[]
  readonly createdAt: Date
  /** When burrowd stopped sending to it, or null while enabled. */
  readonly disabledAt: Date | null
  /** Why it was disabled, for the dashboard, e.g. "disabled after 8 failed attempts in a row; last: HTTP 500". */
  readonly disabledReason: string | null
  /** Failed attempts since the last success. */
  readonly consecutiveFailures: number
}

/** What `create` returns: the endpoint and its signing secret (`whsec_…`). */
export type CreatedWebhookEndpoint = WebhookEndpoint & { readonly secret: string }

/** One entry of an endpoint's delivery log. */
export interface WebhookDelivery {
  /** The `webhook-id` header: the same on every attempt. */
  readonly id: string
  readonly endpointId: string
  /** The event type, e.g. `quota.warning`. */
  readonly type: string
  readonly status: WebhookDeliveryStatus
  /** Attempts made so far. */
  readonly attempts: number
  /** When the event was queued. */
  readonly createdAt: Date
  readonly lastAttemptAt: Date | null
  /** HTTP status of the last attempt, or null when it got no response. */
  readonly lastStatus: number | null
  /** What went wrong on the last attempt (e.g. "HTTP 500", a refused address), or null. */
  readonly lastError: string | null
  /** When the next attempt is due while pending, else null. */
  readonly nextAttemptAt: Date | null
  /** The JSON body sent. */
  readonly payload: string
}

/** Options of `new WebhookEndpointStore`. */
export interface WebhookEndpointStoreOptions {
  /** Accept URLs whose host is a private IP literal or `localhost` (`BURROW_WEBHOOKS_ALLOW_PRIVATE`). */
  readonly allowPrivate?: boolean
}

/** Account-scoped queries over `webhook_endpoints` and their deliveries. */
export class WebhookEndpointStore {
  readonly #db: Kysely<Database>
  readonly #now: () => Date
  readonly #allowPrivate: boolean

  constructor(db: Kysely<Database>, now: () => Date, options: WebhookEndpointStoreOptions = {}) {
    this.#db = db
    this.#now = now
    this.#allowPrivate = options.allowPrivate ?? false
  }

  /**
   * Register an endpoint for `accountId` and return it with its new secret. `events` defaults to
   * `['quota.warning']`. Throws `StoreError` `invalid` for a bad URL or event type, `not_found`
   * for an unknown account, and `conflict` when the account has `MAX_ENDPOINTS_PER_ACCOUNT`.
   */
  async create(
    accountId: string,
    input: { url: string; events?: readonly string[] },
  ): Promise<CreatedWebhookEndpoint> {
    const url = checkUrl(input.url, this.#allowPrivate)
    const events = checkEvents(input.events ?? WEBHOOK_EVENT_TYPES)
    const row = {
      id: 'we_' + randomBytes(10).toString('hex'),
      account_id: accountId,
      url,
      secret: newWebhookSecret(),
      events: events.join(','),
      created_at: this.#now().toISOString(),
      consecutive_failures: 0,
    }
    await this.#db.transaction().execute(async (trx) => {
      // The account's lock, so concurrent creates count one after another.
      if ((await lockAccount(trx, accountId)) === undefined) {
        throw new StoreError('not_found', `account "${accountId}" does not exist`)
      }
      const { count } = await trx
        .selectFrom('webhook_endpoints')
        .select((eb) => eb.fn.countAll<number | string>().as('count'))
        .where('account_id', '=', accountId)
        .executeTakeFirstOrThrow()
      if (Number(count) >= MAX_ENDPOINTS_PER_ACCOUNT) {
        throw new StoreError(
          'conflict',
          `this account already has ${MAX_ENDPOINTS_PER_ACCOUNT} webhook endpoints, the most allowed; delete one first`,
        )
      }
      await trx.insertInto('webhook_endpoints').values(row).execute()
    })
    return {
      ...toEndpoint({
        ...row,
        disabled_at: null,
        disabled_reason: null,
        previous_secret: null,
        previous_secret_expires_at: null,
      }),
      secret: row.secret,
    }
  }

  /** The account's endpoints, oldest first. */
  async list(accountId: string): Promise<WebhookEndpoint[]> {
    const rows = await this.#db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('created_at')
      .orderBy('id')
      .execute()
    return rows.map(toEndpoint)
  }

  /** One of the account's endpoints. Throws `StoreError` `not_found` otherwise. */
  async get(accountId: string, id: string): Promise<WebhookEndpoint> {
    return toEndpoint(await this.#row(accountId, id))
  }

  /** The endpoint's signing secret (`whsec_…`), for its owner. Throws `not_found` otherwise. */
  async revealSecret(accountId: string, id: string): Promise<string> {
    return (await this.#row(accountId, id)).secret
  }

  /**
   * Give the endpoint a new signing secret, and return it. The secret it replaces keeps signing
   * deliveries beside the new one for `PREVIOUS_SECRET_SIGNS_MS`, while the receiver switches
   * (a second rotation within that time ends the older one's). Throws `not_found` otherwise.
   */
  async rotateSecret(
    accountId: string,
    id: string,
  ): Promise<{ secret: string; previousExpiresAt: Date }> {
    const secret = newWebhookSecret()
    const previousExpiresAt = new Date(this.#now().getTime() + PREVIOUS_SECRET_SIGNS_MS)
    // Under the account's lock, which checks again that the request's credential still exists:
    // the new secret is handed to the caller, and one whose API token was revoked while its
    // request arrived must not get a secret its owner's receiver trusts.
    const result = await this.#db.transaction().execute(async (trx) => {
      if ((await lockAccount(trx, accountId)) === undefined) throw notFound(id)
      return trx
        .updateTable('webhook_endpoints')
        .set((eb) => ({
          previous_secret: eb.ref('secret'),
          previous_secret_expires_at: previousExpiresAt.toISOString(),
          secret,
        }))
        .where('id', '=', id)
        .where('account_id', '=', accountId)
        .executeTakeFirst()
    })
    if (result.numUpdatedRows === 0n) throw notFound(id)
    return { secret, previousExpiresAt }
  }

  /** Delete the endpoint and its delivery log. Throws `StoreError` `not_found` otherwise. */
  async delete(accountId: string, id: string): Promise<void> {
    const result = await this.#db
      .deleteFrom('webhook_endpoints')
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .executeTakeFirst()
    if (result.numDeletedRows === 0n) throw notFound(id)
  }

  /**
   * Send to a disabled endpoint again, from new events on, with its failure count reset.
   * Deliveries cancelled when it was disabled stay cancelled. Throws `not_found` otherwise.
   */
  async enable(accountId: string, id: string): Promise<WebhookEndpoint> {
    const row = await this.#db
      .updateTable('webhook_endpoints')
      .set({ disabled_at: null, disabled_reason: null, consecutive_failures: 0 })
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .returningAll()
      .executeTakeFirst()
    if (row === undefined) throw notFound(id)
    return toEndpoint(row)
  }

  /**
   * The endpoint's delivery log, newest first, at most `limit` (1 to `MAX_DELIVERIES_LISTED`)
   * entries. Throws `StoreError` `not_found` for an endpoint the account does not have.
   */
  async deliveries(accountId: string, endpointId: string, limit = 50): Promise<WebhookDelivery[]> {
    await this.#row(accountId, endpointId)
    const rows = await this.#db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('endpoint_id', '=', endpointId)
      .where('account_id', '=', accountId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(Math.min(Math.max(Math.trunc(limit) || 1, 1), MAX_DELIVERIES_LISTED))
      .execute()
    return rows.map(toDelivery)
  }

  async #row(accountId: string, id: string): Promise<Selectable<WebhookEndpointsTable>> {
    const row = await this.#db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .executeTakeFirst()
    if (row === undefined) throw notFound(id)
    return row
  }
}

function notFound(id: string): StoreError {
  return new StoreError('not_found', `webhook endpoint "${id}" not found in this account`)
}

/** The normalised URL, or a `StoreError` `invalid` saying what is wrong with it. */
function checkUrl(input: string, allowPrivate: boolean): string {
  const text = typeof input === 'string' ? input.trim() : ''
  const invalid = (why: string) => new StoreError('invalid', why)
  if (text === '') throw invalid('webhook URL is empty; give one such as https://example.com/hooks')
  if (text.length > MAX_WEBHOOK_URL_LENGTH) {
    throw invalid(
      `webhook URL is ${text.length} characters long; at most ${MAX_WEBHOOK_URL_LENGTH} are allowed`,
    )
  }
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw invalid(`webhook URL "${text}" is not a URL; give one such as https://example.com/hooks`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw invalid(
      `webhook URL "${text}" uses ${url.protocol}; only http:// and https:// are allowed`,
    )
  }
  // Not echoed: the URL holds a password.
  if (url.username !== '' || url.password !== '') {
    throw invalid(
      'webhook URL contains a user name or password; remove them and check the webhook-signature header instead',
    )
  }
  if (url.hash !== '') throw invalid(`webhook URL "${text}" has a #fragment; remove it`)
  if (url.href.length > MAX_WEBHOOK_URL_LENGTH) {
    throw invalid(`webhook URL is longer than ${MAX_WEBHOOK_URL_LENGTH} characters once encoded`)
  }
  const refusal = registrationRefusal(url.hostname, allowPrivate)
  if (refusal !== null) throw invalid(`webhook URL "${url.href}" is ${refusal}`)
  return url.href
}

function checkEvents(events: readonly string[]): WebhookEventType[] {
  const known = WEBHOOK_EVENT_TYPES.join(', ')
  if (!Array.isArray(events) || events.length === 0) {
    throw new StoreError('invalid', `subscribe the endpoint to at least one event type: ${known}`)
  }
  const checked = new Set<WebhookEventType>()
  for (const event of events) {
    if (typeof event !== 'string' || !isWebhookEventType(event)) {
      throw new StoreError('invalid', `event type "${String(event)}" is not one of ${known}`)
    }
    checked.add(event)
  }
  return [...checked]
}

function toEndpoint(row: Selectable<WebhookEndpointsTable>): WebhookEndpoint {
  return {
    id: row.id,
    accountId: row.account_id,
    url: row.url,
    // Only `create` writes this column, with known types; skip any a later version dropped.
    events: row.events.split(',').filter(isWebhookEventType),
    createdAt: new Date(row.created_at),
    disabledAt: row.disabled_at === null ? null : new Date(row.disabled_at),
    disabledReason: row.disabled_reason,
    consecutiveFailures: Number(row.consecutive_failures),
  }
}

function toDelivery(row: Selectable<WebhookDeliveriesTable>): WebhookDelivery {
  const date = (value: string | null) => (value === null ? null : new Date(value))
  return {
    id: row.id,
    endpointId: row.endpoint_id,
    type: row.type,
    status: toDeliveryStatus(row.status),
    attempts: Number(row.attempts),
    createdAt: new Date(row.created_at),
    lastAttemptAt: date(row.last_attempt_at),
    lastStatus: row.last_status === null ? null : Number(row.last_status),
    lastError: row.last_error,
    nextAttemptAt: date(row.next_attempt_at),
    payload: row.payload,
  }
}
