/**
 * What burrowd's mail goes through: one interface, two implementations side by side
 * (`SmtpMailer` to a real SMTP server, `DevOutbox` kept in memory and shown at `/dev/outbox`).
 * Messages are plain text, written by burrowd; user input only ever fills the To address.
 */

/** One email. */
export interface MailMessage {
  readonly to: string
  readonly subject: string
  readonly text: string
}

/** Sends mail; rejects when the message could not be handed over. */
export interface Mailer {
  send(message: MailMessage): Promise<void>
  /** Release connections. */
  close(): void
}
