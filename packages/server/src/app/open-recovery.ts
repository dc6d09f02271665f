/**
 * Builds account recovery for burrowd from its configuration: an SMTP mailer when
 * `BURROW_SMTP_URL` is set, else the dev outbox and its loopback-only page at `/dev/outbox`
 * (logged at start, so an operator who forgot SMTP notices).
 */
import type { IncomingMessage } from 'node:http'
import type { Logger } from '@burrow/protocol'
import type { RateLimits } from '../http/rate-limits.js'
import type { ServerConfig } from '../config.js'
import type { ClientAddresses } from '../http/client-addresses.js'
import { DevOutbox } from '../mail/dev-outbox.js'
import type { Mailer } from '../mail/mailer.js'
import { SmtpMailer } from '../mail/smtp-mailer.js'
import { smtpUrlWarning } from '../mail/mail-settings.js'
import { serviceUrlFor } from '../public-url.js'
import type { Store } from '../store/store.js'
import { AccountRecovery } from './account-recovery.js'
import type { Mount } from './app.js'
import {
  DEV_OUTBOX_PATH,
  devOutboxMount,
  servesOutboxTo,
  type ViewerOf,
} from './dev-outbox-route.js'

/** What `openRecovery` needs. */
export interface RecoveryParts {
  readonly config: ServerConfig
  readonly store: Store
  /** The port burrowd listens on (links use it for local zones). */
  readonly port: number
  readonly addresses: ClientAddresses
  readonly log: Logger
  /** Where the limits on reset requests and mails are kept (default: this process's own). */
  readonly limits?: RateLimits
  /** Who is signed in with a request's session, for the menu of the outbox page. */
  readonly viewerOf: ViewerOf
}

/** Account recovery and the mounts it adds (the dev outbox page, without SMTP). */
export function openRecovery(parts: RecoveryParts): {
  readonly recovery: AccountRecovery
  readonly mounts: readonly Mount[]
} {
  const { config, log } = parts
  const serviceUrl = serviceUrlFor(config, parts.port)
  let mailer: Mailer
  let outboxFor: ((req: IncomingMessage) => string | null) | undefined
  const mounts: Mount[] = []
  if (config.mail.smtpUrl !== null) {
    mailer = new SmtpMailer(config.mail.smtpUrl, config.mail.from)
    const warning = smtpUrlWarning(config.mail.smtpUrl)
    if (warning !== null) log.warn(warning)
  } else {
    const outbox = new DevOutbox(config.mail.from)
    mailer = outbox
    mounts.push(
      devOutboxMount(outbox, parts.addresses, config.publicScheme === 'https', parts.viewerOf),
    )
    outboxFor = (req) => (servesOutboxTo(req, parts.addresses) ? DEV_OUTBOX_PATH : null)
    log.info(
      `mail: no BURROW_SMTP_URL; password-reset and verification mail is shown at ` +
        `${serviceUrl}${DEV_OUTBOX_PATH} (to this machine only)`,
    )
  }
  const recovery = new AccountRecovery({
    store: parts.store,
    mailer,
    serviceUrl,
    log,
    ...(parts.limits ? { limits: parts.limits } : {}),
    ...(outboxFor ? { outboxFor } : {}),
  })
  return { recovery, mounts }
}
