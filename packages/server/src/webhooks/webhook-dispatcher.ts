/**
 * Sends the outbox: finds deliveries that are due, claims each one, POSTs it signed per
 * Standard Webhooks, and records the outcome (delivered, retry later, failed) in the delivery
 * log. Any number of burrowd nodes may run one on the same database: a claim is a conditional
 * UPDATE that moves `next_attempt_at` forward as a lease and counts the attempt, so exactly one
 * node wins each attempt, and a node that dies mid-send leaves a lease that simply runs out.
 * What an outcome does to the delivery and its endpoint is `record-attempt.ts`.
 *
 * Started (`start`), it keeps up to `concurrency` attempts in flight and takes the next due
 * delivery as soon as one ends, so an endpoint that hangs holds its own attempt's place for the
 * deadline and nobody else's; one account has at most `PER_ACCOUNT_AT_ONCE` of those places, and
 * places go to accounts by turns (`delivery-turns.ts`).
 * `runDue` is one explicit pass (tests, and the operator's tools) that resolves when its
 * attempts are recorded.
 */

import type { Logger } from '@burrow/protocol'
import type { Kysely } from 'kysely'
import type { Database } from '../store/schema.js'
import { postWebhook } from './post-webhook.js'
import { pruneQuotaWarnings } from './quota-warning.js'
import type { TriedOutcome } from './post-webhook.js'
import { giveBackAttempt, recordAttempt } from './record-attempt.js'
import { postponeAttempt } from './postpone-attempt.js'
import { UrlGuard } from './url-guard.js'
import type { ResolveHost } from './url-guard.js'
import { signatureHeader, signingSecrets } from './webhook-signature.js'
import { originOf, payloadsOf } from './delivery-rows.js'
import { DeliveryTurns } from './delivery-turns.js'

/** Options of `new WebhookDispatcher`. */
export interface WebhookDispatcherOptions {
  readonly db: Kysely<Database>
  /** Allow private and loopback receivers (`BURROW_WEBHOOKS_ALLOW_PRIVATE`). */
  readonly allowPrivate: boolean
  readonly log: Logger
  /** The clock; tests pass one they move. */
  readonly now?: () => Date
  /** Jitter source in [0, 1); tests pass a fixed one. */
  readonly random?: () => number
  /** How endpoint hostnames are resolved (tests map names to addresses); default DNS. */
  readonly resolve?: ResolveHost
  /** Deadline of one attempt in ms (default 15 000). */
  readonly timeoutMs?: number
  /** `user-agent` of deliveries (default `Burrow-Webhooks`). */
  readonly userAgent?: string
  /** Deliveries looked at per `runDue` (default 50). */
  readonly batchSize?: number
  /** Told of every attempt's outcome (for burrowd's metrics). */
  readonly onAttempt?: (outcome: 'delivered' | 'failed' | 'disabled') => void
  /** Attempts in flight at once (default 16). */
  readonly concurrency?: number
}

/** A due delivery with what sending it needs. */
interface DueDelivery {
  readonly id: string
  readonly endpoint_id: string
  readonly account_id: string
  readonly payload: string
  readonly attempts: number
  readonly next_attempt_at: string | null
  /** Since when its pending attempt has been put off (postpone-attempt.ts), or null. */
  readonly postponed_since: string | null
  readonly url: string
  /** The endpoint's secret, then the one a rotation replaced while it still signs. */
  readonly secrets: readonly string[]
}

/** Due deliveries of one account one pass sends at most. */
const PER_ACCOUNT_PER_PASS = 4
/** Attempts of one account the started dispatcher has in flight at once at most. */
export const PER_ACCOUNT_AT_ONCE = 2
/** How long finished deliveries (delivered, failed, cancelled) stay in the log. */
export const DELIVERY_RETENTION_MS = 30 * 24 * 60 * 60_000
const PRUNE_EVERY_MS = 60 * 60_000

/** Extra lease beyond the attempt deadline, for the database writes around it. */
const LEASE_MARGIN_MS = 45_000

/** Sends due webhook deliveries, on a timer (`start`) or when asked (`runDue`). */
export class WebhookDispatcher {
  readonly #db: Kysely<Database>
  readonly #log: Logger
  readonly #onAttempt: WebhookDispatcherOptions['onAttempt']
  readonly #now: () => Date
  readonly #random: () => number
  readonly #guard: UrlGuard
  readonly #timeoutMs: number
  readonly #userAgent: string
  readonly #batchSize: number
  readonly #concurrency: number
  /** Aborts attempts in flight when `stop` is called. */
  readonly #stopping = new AbortController()
  #pollMs = 1000
  #started = false
  #timer: NodeJS.Timeout | undefined
  /** The started dispatcher's read of the outbox in progress. */
  #filling: Promise<void> | undefined
  #again = false
  /** Attempts in flight, by delivery (`endpoint id` + ` ` + `id`), and per account. */
  readonly #inFlight = new Map<string, Promise<void>>()
  readonly #accountsInFlight = new Map<string, number>()
  readonly #turns: DeliveryTurns
  /** `runDue` calls in progress, which `stop` waits for. */
  readonly #running = new Set<Promise<number>>()
  #stopped: Promise<void> | undefined
  #prunedAt = -Infinity

  constructor(options: WebhookDispatcherOptions) {
    this.#onAttempt = options.onAttempt
    this.#db = options.db
    this.#turns = new DeliveryTurns(options.db)
    this.#log = options.log
    this.#now = options.now ?? (() => new Date())
    this.#random = options.random ?? Math.random
    this.#guard = new UrlGuard({
      allowPrivate: options.allowPrivate,
      ...(options.resolve ? { resolve: options.resolve } : {}),
      signal: this.#stopping.signal, // a stop drops the lookups still waiting for a place
    })
    this.#timeoutMs = options.timeoutMs ?? 15_000
    this.#userAgent = options.userAgent ?? 'Burrow-Webhooks'
    this.#batchSize = options.batchSize ?? 50
    this.#concurrency = options.concurrency ?? 16
  }

  /** Send due deliveries now and every `pollMs` until `stop`. Calling it again does nothing. */
  start(pollMs = 1000): void {
    if (this.#started || this.#stopping.signal.aborted) return
    this.#started = true
    this.#pollMs = pollMs
    this.#pump()
  }

  /** Look for due deliveries now rather than at the next poll (an event was just queued). */
  wake(): void {
    if (this.#started) this.#pump()
  }

  /**
   * Stop polling and abort attempts in flight; their deliveries become due again at once (for
   * another node or the next start). Resolves when the current pass has finished.
   */
  stop(): Promise<void> {
    this.#stopped ??= (async () => {
      this.#stopping.abort(new Error('burrowd is stopping'))
      clearTimeout(this.#timer)
      await this.#filling
      await Promise.allSettled([...this.#running, ...this.#inFlight.values()])
      await this.#guard.close()
    })()
    return this.#stopped
  }

  /**
   * One pass: claim and send every delivery due now (up to the batch size), and record each
   * outcome. Resolves with the number of attempts this dispatcher made.
   */
  runDue(): Promise<number> {
    if (this.#stopping.signal.aborted) return Promise.resolve(0)
    const pass = this.#runDue()
    this.#running.add(pass)
    const forget = () => void this.#running.delete(pass)
    pass.then(forget, forget)
    return pass
  }

  async #runDue(): Promise<number> {
    await this.#prune(this.#now())
    const due = await this.#pick(this.#batchSize, PER_ACCOUNT_PER_PASS)
    let next = 0
    let made = 0
    const worker = async (): Promise<void> => {
      for (let row = due[next++]; row !== undefined; row = due[next++]) {
        if (this.#stopping.signal.aborted) return
        try {
          if (await this.#attempt(row)) made++
        } catch (error) {
          this.#log.error(`webhooks: delivery ${row.id} to ${originOf(row.url)}: ${String(error)}`)
        }
      }
    }
    await Promise.all(Array.from({ length: Math.min(this.#concurrency, due.length) }, worker))
    return made
  }

  /**
   * Due deliveries to send next, by turns between accounts (delivery-turns.ts), with their
   * payloads (read for the rows picked only).
   */
  async #pick(limit: number, perAccount: number): Promise<DueDelivery[]> {
    const now = this.#now().toISOString()
    const picked = await this.#turns.pick(now, limit, perAccount, {
      accounts: this.#accountsInFlight,
      deliveries: this.#inFlight,
    })
    const payloads = new Map<string, string>()
    for (const row of await payloadsOf(this.#db, picked)) {
      payloads.set(`${row.endpoint_id} ${row.id}`, row.payload)
    }
    return picked.map((row) => ({
      id: row.id,
      endpoint_id: row.endpoint_id,
      account_id: row.account_id,
      payload: payloads.get(`${row.endpoint_id} ${row.id}`) ?? '',
      attempts: row.attempts,
      next_attempt_at: row.next_attempt_at,
      postponed_since: row.postponed_since,
      url: row.url,
      secrets: signingSecrets(row, now),
    }))
  }

  /**
   * Delete finished deliveries past `DELIVERY_RETENTION_MS`, and the quota warnings of long past
   * months, at most once an hour per node.
   */
  async #prune(at: Date): Promise<void> {
    if (at.getTime() - this.#prunedAt < PRUNE_EVERY_MS) return
    this.#prunedAt = at.getTime()
    const before = new Date(at.getTime() - DELIVERY_RETENTION_MS).toISOString()
    try {
      await this.#db
        .deleteFrom('webhook_deliveries')
        .where('status', '!=', 'pending')
        .where('created_at', '<', before)
        .execute()
      await pruneQuotaWarnings(this.#db, at)
    } catch (error) {
      this.#log.warn(`webhooks: old deliveries or warnings not pruned: ${(error as Error).message}`)
    }
  }

  /** Claim, send and record one delivery; false when another node claimed it first. */
  async #attempt(row: DueDelivery): Promise<boolean> {
    const at = this.#now()
    const attempt = Number(row.attempts) + 1
    const claimed = await this.#db
      .updateTable('webhook_deliveries')
      .set({
        attempts: attempt,
        next_attempt_at: new Date(at.getTime() + this.#timeoutMs + LEASE_MARGIN_MS).toISOString(),
      })
      .where('endpoint_id', '=', row.endpoint_id)
      .where('id', '=', row.id)
      .where('status', '=', 'pending')
      .where('attempts', '=', row.attempts)
      .where('next_attempt_at', '=', row.next_attempt_at)
      .executeTakeFirst()
    if (claimed.numUpdatedRows !== 1n) return false

    const timestamp = Math.floor(at.getTime() / 1000)
    const outcome = await postWebhook({
      guard: this.#guard,
      // The account's turn at burrowd's name lookups (lookup-turns.ts), not the next in line's.
      asker: `account ${row.account_id}`,
      url: row.url,
      body: row.payload,
      timeoutMs: this.#timeoutMs,
      signal: this.#stopping.signal,
      now: at,
      headers: {
        'content-type': 'application/json',
        'user-agent': this.#userAgent,
        'webhook-id': row.id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signatureHeader(row.secrets, row.id, timestamp, row.payload),
      },
    })
    if (outcome.kind === 'busy') {
      // Other receivers' names held every lookup place: not this receiver's failure.
      const dueAt = row.next_attempt_at ?? at.toISOString()
      const unmade = { id: row.id, endpointId: row.endpoint_id, attempt, dueAt }
      const more = { postponedSince: row.postponed_since, error: outcome.error }
      const taken = await postponeAttempt(
        this.#db,
        { ...unmade, ...more },
        this.#now(),
        this.#random,
      )
      this.#log.warn(`webhooks: delivery ${row.id} to ${originOf(row.url)} ${taken}: ${more.error}`)
    } else if (this.#stopping.signal.aborted && outcome.kind === 'failed') {
      const back = { id: row.id, endpointId: row.endpoint_id, attempt, at: this.#now() }
      await giveBackAttempt(this.#db, back)
    } else await this.#record(row, attempt, at, outcome)
    return true
  }

  /** Write the outcome to the delivery log and the endpoint, and log it. */
  async #record(row: DueDelivery, attempt: number, at: Date, outcome: TriedOutcome): Promise<void> {
    const target = { id: row.id, endpointId: row.endpoint_id, attempt, at }
    const disabledReason = await recordAttempt(this.#db, target, outcome, this.#random)
    this.#onAttempt?.(
      outcome.kind === 'delivered' ? 'delivered' : disabledReason !== null ? 'disabled' : 'failed',
    )
    const where = `delivery ${row.id} (attempt ${attempt}) to ${originOf(row.url)}`
    if (outcome.kind === 'delivered') this.#log.debug(`webhooks: ${where}: HTTP ${outcome.status}`)
    else
      this.#log.warn(
        `webhooks: ${where}: ${outcome.kind === 'failed' ? (outcome.detail ?? outcome.error) : outcome.error}`,
      )
    if (disabledReason !== null) {
      this.#log.warn(
        `webhooks: endpoint ${row.endpoint_id} (${originOf(row.url)}) ${disabledReason}`,
      )
    }
  }

  /**
   * Fill the free places with due deliveries, now; again whenever an attempt ends or an event
   * is queued, and after `pollMs` while a place is free.
   */
  #pump(): void {
    if (this.#stopping.signal.aborted) return
    if (this.#filling !== undefined) {
      this.#again = true
      return
    }
    clearTimeout(this.#timer)
    this.#filling = this.#fill()
      .catch((error: unknown) =>
        this.#log.warn(`webhooks: could not read the outbox: ${String(error)}`),
      )
      .finally(() => {
        this.#filling = undefined
        if (this.#stopping.signal.aborted) return
        if (this.#again) {
          this.#again = false
          this.#pump()
          return
        }
        if (this.#inFlight.size >= this.#concurrency) return // an attempt's end pumps
        this.#timer = setTimeout(() => this.#pump(), this.#pollMs)
        this.#timer.unref()
      })
  }

  async #fill(): Promise<void> {
    await this.#prune(this.#now())
    const free = this.#concurrency - this.#inFlight.size
    if (free <= 0) return
    const due = await this.#pick(free, PER_ACCOUNT_AT_ONCE)
    for (const row of due) {
      if (this.#stopping.signal.aborted) return
      this.#launch(row)
    }
    // A full read may have left more due: read again at once rather than after `pollMs`.
    if (due.length === free) this.#again = true
  }

  /** Send one delivery in a place of its own; its end frees the place and fills it again. */
  #launch(row: DueDelivery): void {
    const key = `${row.endpoint_id} ${row.id}`
    const account = row.account_id
    this.#accountsInFlight.set(account, (this.#accountsInFlight.get(account) ?? 0) + 1)
    let failed = false
    const attempt = this.#attempt(row)
      .then(
        () => undefined,
        (error: unknown) => {
          failed = true
          this.#log.error(`webhooks: delivery ${row.id} to ${originOf(row.url)}: ${String(error)}`)
        },
      )
      .finally(() => {
        this.#inFlight.delete(key)
        const left = (this.#accountsInFlight.get(account) ?? 1) - 1
        if (left > 0) this.#accountsInFlight.set(account, left)
        else this.#accountsInFlight.delete(account)
        // After an error (the database away) the poll comes back to it, not a loop at once.
        if (!failed) this.#pump()
        else if (this.#filling === undefined && !this.#stopping.signal.aborted) {
          clearTimeout(this.#timer)
          this.#timer = setTimeout(() => this.#pump(), this.#pollMs)
          this.#timer.unref()
        }
      })
    this.#inFlight.set(key, attempt)
  }
}
