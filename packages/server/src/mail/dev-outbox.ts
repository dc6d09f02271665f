/**
 * `Mailer` for development and self-hosting without SMTP: the newest messages are kept in this
 * process's memory and shown at `/dev/outbox` (dev-outbox-route.ts) to browsers on this machine,
 * as the dev checkout stands in for the payment provider. Nothing leaves the process.
 */
import type { MailMessage, Mailer } from './mailer.js'

/** Messages kept; older ones are dropped. */
export const DEV_OUTBOX_SIZE = 50

/** A kept message and when it was "sent". */
export interface OutboxEntry extends MailMessage {
  readonly at: Date
  readonly from: string
}

/** The in-memory outbox. */
export class DevOutbox implements Mailer {
  readonly #from: string
  readonly #now: () => Date
  readonly #entries: OutboxEntry[] = []

  constructor(from: string, now: () => Date = () => new Date()) {
    this.#from = from
    this.#now = now
  }

  async send(message: MailMessage): Promise<void> {
    this.#entries.unshift({ ...message, from: this.#from, at: this.#now() })
    this.#entries.length = Math.min(this.#entries.length, DEV_OUTBOX_SIZE)
  }

  /** The kept messages, newest first. */
  entries(): readonly OutboxEntry[] {
    return [...this.#entries]
  }

  close(): void {}
}
