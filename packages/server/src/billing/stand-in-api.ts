/**
 * The API routes of the dev provider's stand-in for Paddle: the calls `PaddleClient` makes,
 * answered from the stand-in's memory with Paddle's entities, and refused with Paddle-style
 * errors (`StandInError` → `{error: {type, code, detail}}`) for unknown ids, bad fields and
 * changes to a canceled subscription. Webhooks follow as Paddle sends them.
 */

import { randomBytes } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { readBody } from '../http/read-body.js'
import { sendJson } from '../http/responses.js'
import type { PaddleStandIn } from './paddle-stand-in.js'
import {
  addCycle,
  customerEntity,
  subscriptionEntity,
  transactionEntity,
} from './stand-in-entities.js'
import type { StandInPrice, StandInSubscription, StandInTransaction } from './stand-in-entities.js'
import { prorate, updateSummaryEntity, type Proration } from './proration.js'

/** A refused API call: the HTTP status and Paddle error code to answer with. */
export class StandInError extends Error {
  readonly status: number
  readonly code: string

  constructor(status: number, code: string, detail: string) {
    super(detail)
    this.name = 'StandInError'
    this.status = status
    this.code = code
  }
}

const PRORATION_MODES = [
  'prorated_immediately',
  'prorated_next_billing_period',
  'full_immediately',
  'full_next_billing_period',
  'do_not_bill',
]

const BODY_LIMIT = 64 * 1024

/**
 * Serve one authorised API call: `{data, meta}` on success, Paddle's error shape otherwise.
 * `path` is below the stand-in's prefix; `base` is its public URL.
 */
export async function serveApi(
  standIn: PaddleStandIn,
  req: IncomingMessage,
  res: ServerResponse,
  where: { readonly base: string; readonly path: string; readonly query: URLSearchParams },
): Promise<void> {
  const method = req.method ?? 'GET'
  try {
    const body = method === 'POST' || method === 'PATCH' ? await readJson(req) : undefined
    const data = standInApi(standIn, where.base, method, where.path, where.query, body)
    const created = method === 'POST' && /^\/(transactions|customers)$/.test(where.path)
    sendJson(res, created ? 201 : 200, { data, meta: { request_id: requestId() } })
  } catch (error) {
    if (error instanceof StandInError) return sendApiError(res, error)
    standIn.log.error(`dev billing: ${method} ${where.path} failed: ${(error as Error).stack}`)
    sendApiError(res, new StandInError(500, 'internal_error', 'the stand-in failed'))
  }
}

/** Answer with Paddle's error shape. */
export function sendApiError(res: ServerResponse, error: StandInError): void {
  sendJson(res, error.status, {
    error: {
      type: 'request_error',
      code: error.code,
      detail: error.message,
      documentation_url: '',
    },
    meta: { request_id: requestId() },
  })
}

/**
 * Answer one authorised API call with the response's `data`. `base` is the stand-in's public URL
 * (for checkout links). Throws `StandInError`.
 */
function standInApi(
  standIn: PaddleStandIn,
  base: string,
  method: string,
  path: string,
  query: URLSearchParams,
  body: unknown,
): unknown {
  if (path === '/customers' && method === 'GET') {
    const email = query.get('email')?.toLowerCase()
    return [...standIn.customers.values()]
      .filter((c) => email === undefined || c.email === email)
      .map((c) => customerEntity(c))
  }
  if (path === '/customers' && method === 'POST') {
    const email = requiredText(fields(body), 'email').toLowerCase()
    if ([...standIn.customers.values()].some((c) => c.email === email)) {
      throw new StandInError(
        409,
        'customer_already_exists',
        `customer email ${email} already exists`,
      )
    }
    return customerEntity(standIn.addCustomer(email))
  }
  if (path === '/transactions' && method === 'POST') return createTransaction(standIn, base, body)
  const txn = /^\/transactions\/([^/]+)$/.exec(path)
  if (txn && (method === 'GET' || method === 'PATCH')) {
    const found = standIn.transactions.get(decodeURIComponent(txn[1]!))
    if (found === undefined) throw notFound('transaction', txn[1]!)
    if (method === 'PATCH') cancelTransaction(standIn, found, body)
    return transactionEntity(found)
  }
  const sub = /^\/subscriptions\/([^/]+)(\/cancel|\/preview)?$/.exec(path)
  if (sub) {
    const id = decodeURIComponent(sub[1]!)
    const found = standIn.subscriptions.get(id)
    if (found === undefined) throw notFound('subscription', id)
    if (sub[2] === undefined && method === 'GET') return subscriptionEntity(found)
    if (sub[2] === undefined && method === 'PATCH') return updateSubscription(standIn, found, body)
    if (sub[2] === '/preview' && method === 'PATCH') return previewUpdate(standIn, found, body)
    if (sub[2] === '/cancel' && method === 'POST') return cancelSubscription(standIn, found, body)
  }
  throw new StandInError(404, 'not_found', `${method} ${path} is not part of the stand-in's API`)
}

/**
 * `PATCH /transactions/{id}` `{status: "canceled"}`, the one update burrowd makes: void a checkout
 * not paid yet. Paddle refuses to cancel one that is completed (400,
 * `transaction_invalid_status_change`, its error reference).
 */
function cancelTransaction(standIn: PaddleStandIn, txn: StandInTransaction, body: unknown): void {
  if (standIn.transactionUpdateFaults > 0) {
    standIn.transactionUpdateFaults--
    throw new StandInError(503, 'service_unavailable', 'the stand-in was told to fail this update')
  }
  if (fields(body).status !== 'canceled') {
    throw new StandInError(400, 'invalid_field', 'the stand-in only cancels transactions')
  }
  if (txn.status === 'completed') {
    const detail = `Invalid attempt to change status from 'completed' to 'canceled'`
    throw new StandInError(400, 'transaction_invalid_status_change', detail)
  }
  txn.status = 'canceled'
  txn.updatedAt = standIn.now()
}

function createTransaction(standIn: PaddleStandIn, base: string, body: unknown): unknown {
  const input = fields(body)
  const price = onePrice(standIn, input.items)
  const customerId = optionalText(input, 'customer_id')
  if (customerId !== null && !standIn.customers.has(customerId))
    throw notFound('customer', customerId)
  const customData = input.custom_data
  if (customData !== undefined && customData !== null && !isObject(customData)) {
    throw invalid('custom_data', 'must be an object or null')
  }
  const txn = standIn.addTransaction({
    price,
    customerId,
    customData: isObject(customData) ? customData : null,
    base,
  })
  return transactionEntity(txn)
}

function cancelSubscription(
  standIn: PaddleStandIn,
  sub: StandInSubscription,
  body: unknown,
): unknown {
  if (standIn.subscriptionCancelFaults > 0) {
    standIn.subscriptionCancelFaults--
    throw new StandInError(503, 'service_unavailable', 'the stand-in was told to fail this cancel')
  }
  if (standIn.subscriptionCancelLocks > 0) {
    standIn.subscriptionCancelLocks--
    const message = 'unable to update subscription 30m0s before processing'
    throw new StandInError(409, 'subscription_locked_processing', message)
  }
  locked(sub)
  const from = optionalText(fields(body ?? {}), 'effective_from') ?? 'next_billing_period'
  if (from === 'immediately') {
    sub.status = 'canceled'
    sub.canceledAt = standIn.now()
    sub.scheduledChange = null
    standIn.changed(sub, 'subscription.canceled')
  } else if (from === 'next_billing_period') {
    const effectiveAt = sub.periodEnd ?? standIn.now()
    sub.scheduledChange = { action: 'cancel', effectiveAt }
    standIn.changed(sub, 'subscription.updated')
  } else {
    throw invalid('effective_from', 'must be next_billing_period or immediately')
  }
  return subscriptionEntity(sub)
}

function updateSubscription(
  standIn: PaddleStandIn,
  sub: StandInSubscription,
  body: unknown,
): unknown {
  locked(sub)
  const input = fields(body)
  const change = itemsChange(standIn, sub, input)
  if ('scheduled_change' in input) {
    if (input.scheduled_change !== null) {
      throw invalid('scheduled_change', 'may only be set to null (to remove a scheduled change)')
    }
    sub.scheduledChange = null
  }
  if (change !== null) {
    // Paddle bills (or credits) the proration as it changes the items.
    standIn.prorations.push({ subscriptionId: sub.id, at: standIn.now(), ...change.proration })
    if (change.price.cycle !== sub.price.cycle) {
      // A new billing interval starts a new period now, charged per the proration mode.
      const now = standIn.now()
      sub.periodStart = now
      sub.periodEnd = addCycle(now, change.price.cycle)
    }
    sub.price = change.price
  }
  standIn.changed(sub, 'subscription.updated')
  return subscriptionEntity(sub)
}

/** `PATCH /subscriptions/{id}/preview`: the subscription as it would be, and what it costs. */
function previewUpdate(standIn: PaddleStandIn, sub: StandInSubscription, body: unknown): unknown {
  locked(sub)
  const input = fields(body)
  const change = itemsChange(standIn, sub, input)
  if (change === null) throw invalid('items', 'are required to preview a change')
  return {
    ...subscriptionEntity({ ...sub, price: change.price }),
    update_summary: updateSummaryEntity(change.proration),
  }
}

/** The new price `input.items` names and its proration, or null when items do not change. */
function itemsChange(
  standIn: PaddleStandIn,
  sub: StandInSubscription,
  input: Record<string, unknown>,
): { readonly price: StandInPrice; readonly proration: Proration } | null {
  if (input.items === undefined) return null
  const mode = optionalText(input, 'proration_billing_mode')
  if (mode === null || !PRORATION_MODES.includes(mode)) {
    throw invalid(
      'proration_billing_mode',
      `is required with items; one of ${PRORATION_MODES.join(', ')}`,
    )
  }
  const price = onePrice(standIn, input.items)
  const now = standIn.now()
  const proration = prorate({
    oldCents: sub.price.amountCents,
    newCents: price.amountCents,
    periodStart: sub.periodStart ?? now,
    periodEnd: sub.periodEnd ?? now,
    sameInterval: price.cycle === sub.price.cycle,
    mode,
    now,
  })
  return { price, proration }
}

function locked(sub: StandInSubscription): void {
  if (sub.status === 'canceled') {
    throw new StandInError(
      400,
      'subscription_update_when_canceled',
      `subscription ${sub.id} is canceled and cannot be changed`,
    )
  }
}

/** The one catalog price `items` names (the stand-in sells one item per transaction). */
function onePrice(standIn: PaddleStandIn, items: unknown): StandInPrice {
  if (!Array.isArray(items) || items.length !== 1 || !isObject(items[0])) {
    throw invalid('items', 'must be a list of exactly one {price_id, quantity}')
  }
  const item = items[0]
  const priceId = requiredText(item, 'price_id')
  if (item.quantity !== 1) throw invalid('items[0].quantity', 'must be 1')
  const price = standIn.prices.get(priceId)
  if (price === undefined) throw notFound('price', priceId)
  return price
}

function fields(body: unknown): Record<string, unknown> {
  if (!isObject(body))
    throw new StandInError(400, 'bad_request', 'the request body must be a JSON object')
  return body
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function requiredText(input: Record<string, unknown>, name: string): string {
  const value = input[name]
  if (typeof value !== 'string' || value === '') throw invalid(name, 'must be a non-empty string')
  return value
}

function optionalText(input: Record<string, unknown>, name: string): string | null {
  const value = input[name]
  if (value === undefined || value === null) return null
  if (typeof value !== 'string') throw invalid(name, 'must be a string')
  return value
}

function invalid(field: string, problem: string): StandInError {
  return new StandInError(400, 'invalid_field', `${field} ${problem}`)
}

function notFound(entity: string, id: string): StandInError {
  return new StandInError(404, 'not_found', `${entity} ${id} not found`)
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const raw = await readBody(req, BODY_LIMIT)
  if (raw === 'aborted')
    throw new StandInError(400, 'bad_request', 'the request body was cut short')
  if (raw === 'too_large') {
    throw new StandInError(413, 'request_too_large', `the body is over ${BODY_LIMIT} bytes`)
  }
  try {
    return JSON.parse(raw.toString('utf8')) as unknown
  } catch {
    throw new StandInError(400, 'invalid_json', 'the request body is not valid JSON')
  }
}

function requestId(): string {
  return randomBytes(8).toString('hex')
}
