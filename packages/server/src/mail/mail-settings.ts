/**
 * How burrowd sends email (password resets, address verification): through the SMTP server
 * `BURROW_SMTP_URL` names, from `BURROW_MAIL_FROM`; with no SMTP URL, to the dev outbox page
 * (`/dev/outbox`, loopback only). `config.ts` calls `parseMailSettings`; docs/configuration.md
 * lists both variables.
 */
import { ConfigError } from '../config-error.js'
import { redactUrl } from '../redact-url.js'

/** Where mail goes. */
export interface MailSettings {
  /** `smtp://` or `smtps://` URL with optional user:password, or null for the dev outbox. */
  readonly smtpUrl: string | null
  /** The From address, e.g. `Burrow <no-reply@example.com>`. */
  readonly from: string
}

/** `Name <a@b.c>` or `a@b.c`, on one line. */
const FROM = /^(?:[^<>\r\n]{0,200}<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/

/**
 * Mail settings from the two variables' values (`undefined` when unset); `zone` gives the
 * default From. Throws `ConfigError` for a URL that is not smtp(s) or a From that is no address.
 */
export function parseMailSettings(
  smtpUrl: string | undefined,
  from: string | undefined,
  zone: string,
): MailSettings {
  if (smtpUrl !== undefined) {
    let url: URL | null
    try {
      url = new URL(smtpUrl)
    } catch {
      url = null
    }
    if (url === null || (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') || !url.host) {
      throw new ConfigError(
        'BURROW_SMTP_URL',
        `BURROW_SMTP_URL="${redactUrl(smtpUrl)}" is not valid; ` +
          'expected smtp://[USER:PASSWORD@]HOST[:PORT] (STARTTLS when offered) or smtps://… (TLS)',
      )
    }
  }
  const address = from ?? `Burrow <no-reply@${zone}>`
  if (address.length > 320 || !FROM.test(address)) {
    throw new ConfigError(
      'BURROW_MAIL_FROM',
      `BURROW_MAIL_FROM="${address}" is not valid; expected an address such as ` +
        '"Burrow <no-reply@example.com>" or no-reply@example.com',
    )
  }
  return Object.freeze({ smtpUrl: smtpUrl ?? null, from: address })
}

/**
 * The warning burrowd logs at start for an `smtp://` URL to another machine that does not require
 * TLS, or null. Over `smtp://` nodemailer upgrades with STARTTLS only when the server offers it,
 * so someone on the network path who removes the offer reads the SMTP password and every reset
 * link (found by a hostile review). `smtps://`, `?requireTLS=true` (refuse a server that does not
 * offer it) or a relay on this machine are safe.
 */
export function smtpUrlWarning(smtpUrl: string): string | null {
  let url: URL
  try {
    url = new URL(smtpUrl)
  } catch {
    return null
  }
  if (url.protocol !== 'smtp:' || url.searchParams.get('requireTLS') === 'true') return null
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase()
  if (host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host)) return null
  return (
    `mail: BURROW_SMTP_URL uses smtp:// to ${host}, which takes STARTTLS only when the server ` +
    `offers it: someone on the network path can remove the offer and read the SMTP password ` +
    `and the reset links; use smtps://, or add ?requireTLS=true`
  )
}
