/**
 * `Mailer` over SMTP with nodemailer: one pooled transport to the server `BURROW_SMTP_URL`
 * names (`smtp://` upgrades with STARTTLS when the server offers it, `smtps://` is TLS from the
 * start), every message from `BURROW_MAIL_FROM`.
 */
import nodemailer from 'nodemailer'
import type { Transporter } from 'nodemailer'
import { isOneMailbox } from './email-address.js'
import type { MailMessage, Mailer } from './mailer.js'

/** Mail handed to an SMTP server. */
export class SmtpMailer implements Mailer {
  readonly #transport: Transporter
  readonly #from: string

  constructor(url: string, from: string) {
    this.#transport = nodemailer.createTransport(url)
    this.#from = from
  }

  async send(message: MailMessage): Promise<void> {
    // An address that names other mailboxes inside it (an account made before sign-up refused
    // them) gets no mail rather than mail to someone else.
    if (!isOneMailbox(message.to)) {
      throw new Error(`"${message.to}" is not one mailbox; no mail sent`)
    }
    await this.#transport.sendMail({
      from: this.#from,
      to: { name: '', address: message.to },
      subject: message.subject,
      text: message.text,
    })
  }

  close(): void {
    this.#transport.close()
  }
}
