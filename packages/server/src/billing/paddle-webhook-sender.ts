/**
 * Sending webhooks the way Paddle does, for the dev provider's stand-in: a JSON body with
 * `event_id`, `event_type`, `occurred_at`, `notification_id` and `data`, POSTed to the
 * notification URL with a `Paddle-Signature` made at each attempt, retried on failure (at least
 * once delivery; the event id never changes). Deliveries go one at a time in the order sent,
 * and can be held and released in another order to act out Paddle's out-of-order delivery.
 */

import { randomBytes } from 'node:crypto'
import type { Logger } from '@burrow/protocol'
import { signPaddle } from './paddle-signature.js'

/** A webhook body as Paddle sends it. */
export interface PaddleWebhook {
  readonly event_id: string
  readonly event_type: string
  readonly occurred_at: string
  readonly notification_id: string
  readonly data: unknown
}

/** A webhook sent (or being sent) and how its delivery went. */
export interface SentWebhook {
  readonly event: PaddleWebhook
  /** Attempts made so far. */
  attempts: number
  /** HTTP status of the last attempt, 0 when it got no answer, null before the first. */
  lastStatus: number | null
  delivered: boolean
}

/** Options of `new PaddleWebhookSender`. */
export interface PaddleWebhookSenderOptions {
  /** Where to POST, e.g. `http://127.0.0.1:7100/webhooks/paddle`. */
  readonly url: string
  /** The notification destination's secret. */
  readonly secret: string
  /** Clock for `occurred_at` and the signature's `ts`. */
  readonly now: () => Date
  /** Waits before each retry (default 0.25 s, 1 s, 4 s: four attempts in all). */
  readonly retryDelaysMs?: readonly number[]
  /** Deadline of one attempt (default 10 s). */
  readonly timeoutMs?: number
  readonly log: Logger
}

const DEFAULT_RETRY_DELAYS_MS = [250, 1000, 4000]

/** Signs and delivers webhooks, in order, with retries. */
export class PaddleWebhookSender {
  readonly #opts: PaddleWebhookSenderOptions
  readonly #sent: SentWebhook[] = []
  /** Deliveries chain on this, so they leave in the order sent. */
  #queue: Promise<void> = Promise.resolve()
  /** Webhooks waiting for `release` while held, else null. */
  #held: SentWebhook[] | null = null

  constructor(opts: PaddleWebhookSenderOptions) {
    this.#opts = opts
  }

  /** Every webhook made, oldest first. */
  get sent(): readonly SentWebhook[] {
    return this.#sent
  }

  /** Make a webhook about `data` now and queue its delivery; returns it as sent. */
  send(eventType: string, data: unknown): SentWebhook {
    const event: PaddleWebhook = {
      event_id: `evt_${randomBytes(13).toString('hex')}`,
      event_type: eventType,
      occurred_at: this.#opts.now().toISOString(),
      notification_id: `ntf_${randomBytes(13).toString('hex')}`,
      data,
    }
    const sent: SentWebhook = { event, attempts: 0, lastStatus: null, delivered: false }
    this.#sent.push(sent)
    if (this.#held !== null) this.#held.push(sent)
    else this.#enqueue(sent)
    return sent
  }

  /** Deliver an already-sent webhook again, byte for byte (a duplicate, as Paddle may send). */
  resend(eventId: string): Promise<void> {
    const sent = this.#sent.find((s) => s.event.event_id === eventId)
    if (sent === undefined) throw new Error(`no webhook ${eventId} was sent; cannot resend it`)
    this.#enqueue(sent)
    return this.idle()
  }

  /** Keep new webhooks back until `release`. */
  hold(): void {
    this.#held ??= []
  }

  /** Deliver the webhooks held back, in the order made or reversed, and stop holding. */
  release(order: 'sent' | 'reverse' = 'sent'): Promise<void> {
    const held = this.#held ?? []
    this.#held = null
    for (const sent of order === 'reverse' ? [...held].reverse() : held) this.#enqueue(sent)
    return this.idle()
  }

  /** Resolves once every queued delivery has finished (delivered or given up). */
  idle(): Promise<void> {
    return this.#queue
  }

  #enqueue(sent: SentWebhook): void {
    this.#queue = this.#queue.then(() => this.#deliver(sent))
  }

  async #deliver(sent: SentWebhook): Promise<void> {
    const body = JSON.stringify(sent.event)
    const delays = this.#opts.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS
    for (let attempt = 0; attempt <= delays.length; attempt++) {
      if (attempt > 0) await sleep(delays[attempt - 1] ?? 0)
      sent.attempts++
      sent.lastStatus = await this.#post(body)
      if (sent.lastStatus >= 200 && sent.lastStatus < 300) {
        sent.delivered = true
        return
      }
    }
    this.#opts.log.warn(
      `dev billing: webhook ${sent.event.event_type} ${sent.event.event_id} to ${this.#opts.url} ` +
        `failed ${sent.attempts} times (last status ${sent.lastStatus}); giving up`,
    )
  }

  /** One attempt; the status, or 0 when no answer came. */
  async #post(body: string): Promise<number> {
    const ts = Math.floor(this.#opts.now().getTime() / 1000)
    try {
      const res = await fetch(this.#opts.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'paddle-signature': signPaddle(this.#opts.secret, ts, body),
        },
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(this.#opts.timeoutMs ?? 10_000),
      })
      await res.arrayBuffer().catch(() => undefined)
      return res.status
    } catch (error) {
      this.#opts.log.debug(
        `dev billing: webhook POST to ${this.#opts.url} failed: ${String(error)}`,
      )
      return 0
    }
  }
}

/** Wait `ms`; the timer does not keep the process alive (a stopping burrowd drops retries). */
function sleep(ms: number): Promise<void> {
  return ms <= 0 ? Promise.resolve() : new Promise((resolve) => setTimeout(resolve, ms).unref())
}
