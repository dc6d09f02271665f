/**
 * The way back into an account, and the proof that its address is the owner's: password-reset
 * and email-verification links sent by mail (docs/decisions.md#account-recovery). Links are built
 * from the configured service URL, never from the request's Host, so nobody can make Burrow mail
 * a link to their own site. Asking for a reset looks the same whether or not an account uses the
 * address (the lookup and the mail run after the answer), and is limited per client address,
 * client network, account and mailbox; tokens are single-use, hashed and expiring
 * (`AccountTokenStore`).
 */
import { createHash } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { Logger } from '@burrow/protocol'
import { networkKeyOf, networkOfRateKey, rateKeyOf } from '../http/client-addresses.js'
import type { RateDecision, RateLimiter } from '../http/rate-limiter.js'
import { localRateLimits, type RateLimits } from '../http/rate-limits.js'
import { mailboxKey } from '../mail/mailbox-key.js'
import type { Mailer } from '../mail/mailer.js'
import {
  RESET_TOKEN_TTL_MS,
  VERIFY_TOKEN_TTL_MS,
  type AccountTokenHolder,
} from '../store/account-token-store.js'
import { passwordProblem } from '../store/password.js'
import { StoreError } from '../store/store-error.js'
import type { Store } from '../store/store.js'

/** Reset requests a client address (IPv6: its /64) may make per 15 minutes. */
export const RESET_REQUESTS_PER_ADDRESS = 5
/** Reset requests the addresses of one network (IPv4 /24, IPv6 /48) may make per 15 minutes. */
export const RESET_REQUESTS_PER_NETWORK = 20
/**
 * Earlier reset links that stay valid when a new one is issued: asking again (anyone may, for any
 * address) does not void the link the owner is about to use.
 */
export const RESET_LINKS_KEPT = 2
/**
 * Reset mails, and apart from them verification mails, one account may be sent per hour (more
 * are silently dropped).
 */
export const MAILS_PER_ACCOUNT_PER_HOUR = 3
/** Verification mails the requests of one client address (IPv6: its /64) may cause per hour. */
export const VERIFICATIONS_PER_ADDRESS_PER_HOUR = 10
/** Verification mails the requests of one network (IPv4 /24, IPv6 /48) may cause per hour. */
export const VERIFICATIONS_PER_NETWORK_PER_HOUR = 30

/** Options of `new AccountRecovery`. */
export interface AccountRecoveryOptions {
  readonly store: Store
  readonly mailer: Mailer
  /** The service's own URL, e.g. `https://burrow.example.com` (links start with it). */
  readonly serviceUrl: string
  readonly log: Logger
  /** Milliseconds clock for the rate limits (tests pass their own). */
  readonly now?: () => number
  /** Where the rate limits are kept (default: this process's own). */
  readonly limits?: RateLimits
  /**
   * Where the browser that sent `req` can read the mail burrowd did not send (the dev outbox's
   * path), or null: none without SMTP, or that browser is not served the outbox.
   */
  readonly outboxFor?: (req: IncomingMessage) => string | null
}

/** A password reset done. */
export interface ResetDone {
  readonly accountId: string
  /** Whether the address was confirmed before (else the reset was its first proof). */
  readonly wasVerified: boolean
}

/** The outcome of asking for a reset link. */
export type ResetRequest =
  { readonly ok: true } | { readonly ok: false; readonly retryAfterSecs: number }

/** Password resets and address verification. */
export class AccountRecovery {
  readonly #store: Store
  readonly #mailer: Mailer
  readonly #serviceUrl: string
  readonly #log: Logger
  readonly #outboxFor: (req: IncomingMessage) => string | null
  readonly #perAddress: RateLimiter
  readonly #perNetwork: RateLimiter
  readonly #perAccount: RateLimiter
  /** The allowance of browsers that signed in to the account before, shared by them. */
  readonly #perTrusted: RateLimiter
  /**
   * Verification mails, counted apart from reset mails: whoever holds an account made with
   * another person's address sends them, and must not spend the allowance that person needs to
   * get a reset link (nor strangers asking for resets the signed-in owner's verification mails).
   */
  readonly #verifications: RateLimiter
  /**
   * The same allowances per mailbox (`mailboxKey`), over every account whose address reaches it:
   * an email signs up one account, but `name+1@`, `name+2@` and `n.ame@` are as many accounts
   * for one inbox, and a stranger signing up ten a minute had each mail it.
   */
  readonly #mailboxResets: RateLimiter
  readonly #mailboxVerifications: RateLimiter
  /**
   * Verification mails by the client that asked: its address and its network. Sign-ups are
   * bounded per client address, but each signs up another mailbox, and addresses come cheap
   * (an IPv6 /48 holds 65,536 /64s).
   */
  readonly #clientVerifications: RateLimiter
  readonly #networkVerifications: RateLimiter
  /** Mail being handed over, so `idle()` can wait for it (tests, shutdown). */
  readonly #pending = new Set<Promise<void>>()

  constructor(options: AccountRecoveryOptions) {
    this.#store = options.store
    this.#mailer = options.mailer
    this.#serviceUrl = options.serviceUrl.replace(/\/+$/, '')
    this.#log = options.log
    this.#outboxFor = options.outboxFor ?? (() => null)
    const now = options.now ? { now: options.now } : {}
    const limits = options.limits ?? localRateLimits
    this.#perAddress = limits.limiter('recovery.address', {
      capacity: RESET_REQUESTS_PER_ADDRESS,
      perMs: 15 * 60_000,
      overflowGroup: networkOfRateKey,
      ...now,
    })
    this.#perNetwork = limits.limiter('recovery.network', {
      capacity: RESET_REQUESTS_PER_NETWORK,
      perMs: 15 * 60_000,
      ...now,
    })
    this.#perAccount = limits.limiter('recovery.account', {
      capacity: MAILS_PER_ACCOUNT_PER_HOUR,
      perMs: 60 * 60_000,
      ...now,
    })
    this.#perTrusted = limits.limiter('recovery.trusted', {
      capacity: MAILS_PER_ACCOUNT_PER_HOUR,
      perMs: 60 * 60_000,
      ...now,
    })
    this.#verifications = limits.limiter('recovery.verify', {
      capacity: MAILS_PER_ACCOUNT_PER_HOUR,
      perMs: 60 * 60_000,
      ...now,
    })
    this.#mailboxResets = limits.limiter('recovery.mailbox-reset', {
      capacity: MAILS_PER_ACCOUNT_PER_HOUR,
      perMs: 60 * 60_000,
      ...now,
    })
    this.#mailboxVerifications = limits.limiter('recovery.mailbox-verify', {
      capacity: MAILS_PER_ACCOUNT_PER_HOUR,
      perMs: 60 * 60_000,
      ...now,
    })
    this.#clientVerifications = limits.limiter('recovery.client-verify', {
      capacity: VERIFICATIONS_PER_ADDRESS_PER_HOUR,
      perMs: 60 * 60_000,
      overflowGroup: networkOfRateKey,
      ...now,
    })
    this.#networkVerifications = limits.limiter('recovery.network-verify', {
      capacity: VERIFICATIONS_PER_NETWORK_PER_HOUR,
      perMs: 60 * 60_000,
      ...now,
    })
  }

  /**
   * Someone at `clientAddress` (`ClientAddresses.of`) asks for a reset link for `email`. Refused
   * only by the limits of that address (IPv6: its /64) and, unless the browser is `trusted`, of
   * its network (IPv4 /24, IPv6 /48); otherwise ok whatever `email` is, and the link is mailed
   * in the background when an account uses that address and has not had too many reset mails
   * this hour. Browsers that signed in to the account before (`trusted`: their device cookie)
   * share an allowance of their own, so strangers asking for the address cannot spend the
   * owner's; each allowance is per account, so nobody can mail an address more than twice the
   * allowance of resets an hour. Strangers' requests also spend the allowance of the mailbox the
   * address reaches, shared by every account whose address folds to it (`mailboxKey`); the known
   * browsers' does not.
   */
  requestReset(email: string, clientAddress: string, trusted = false): ResetRequest {
    const decision = takeAll([
      [this.#perAddress, rateKeyOf(clientAddress)],
      ...(trusted ? [] : [[this.#perNetwork, networkKeyOf(clientAddress)] as const]),
    ])
    if (!decision.ok) return decision
    if (email.length > 320) return { ok: true }
    this.#background(async () => {
      const holder = await this.#store.accountTokens.accountByEmail(email)
      if (!holder) return
      const allowed = trusted
        ? this.#perTrusted.take(holder.accountId).ok
        : takeAll([
            [this.#perAccount, holder.accountId],
            [this.#mailboxResets, mailboxLimitKey(holder.email)],
          ]).ok
      if (!allowed) return
      const token = await this.#store.accountTokens.issue(
        holder.accountId,
        'reset',
        holder.email,
        RESET_TOKEN_TTL_MS,
        RESET_LINKS_KEPT,
      )
      await this.#mailer.send({
        to: holder.email,
        subject: 'Reset your Burrow password',
        text:
          `Someone (hopefully you) asked to reset the password of the Burrow account for ` +
          `${holder.email}.\n\nChoose a new password here (the link works once, for an hour):\n` +
          `${this.#serviceUrl}/reset?token=${token}\n\n` +
          `If you did not ask, ignore this email: your password stays as it is.\n`,
      })
    })
    return { ok: true }
  }

  /**
   * The address reset link `token` was mailed to while it is live (the form is worth showing,
   * and names the account it resets), or undefined; it stays unused.
   */
  async resetHolder(token: string): Promise<string | undefined> {
    return (await this.#store.accountTokens.find(token, 'reset'))?.email
  }

  /**
   * Set a new password with reset link `token`, after which every other reset link and every
   * browser session of the account stop working, and the address counts as verified. When it
   * was not verified before, the link is the first proof that the mailbox's owner holds the
   * account: `unproven` is awaited first, to end what an earlier holder made (if it throws, the
   * address stays unverified and a new link does it again). Throws `StoreError` `invalid` for a
   * password the sign-up form would refuse (the link stays usable) or a link that is unknown,
   * expired or used.
   */
  async resetPassword(
    token: string,
    password: string,
    unproven: (accountId: string) => Promise<void> = async () => {},
  ): Promise<ResetDone> {
    const problem = passwordProblem(password)
    if (problem !== null) throw new StoreError('invalid', problem)
    const holder = await this.#store.accountTokens.use(token, 'reset')
    if (!holder) throw invalidLink()
    const wasVerified = (await this.#store.accountTokens.verifiedAt(holder.accountId)) !== null
    await this.#store.setPassword(holder.accountId, password)
    await this.#store.accountTokens.revokeAll(holder.accountId, 'reset')
    await this.#store.webSessions.deleteForAccount(holder.accountId)
    if (!wasVerified) await unproven(holder.accountId)
    await this.#store.accountTokens.markVerified(holder.accountId, holder.email)
    return { accountId: holder.accountId, wasVerified }
  }

  /**
   * Mail account `accountId` (address `email`) a verification link, in the background, for a
   * request from `clientAddress` (`ClientAddresses.of`); false when it, the mailbox its address
   * reaches (`mailboxKey`: every account whose address folds to it), or that client's address
   * (IPv6: its /64) or network (IPv4 /24, IPv6 /48) was spent too many verification mails this
   * hour (reset mails do not count). The client's allowances are taken first: a refused client
   * touches no mailbox's bucket.
   */
  sendVerification(accountId: string, email: string, clientAddress: string): boolean {
    const allowed = takeAll([
      [this.#clientVerifications, rateKeyOf(clientAddress)],
      [this.#networkVerifications, networkKeyOf(clientAddress)],
      [this.#verifications, accountId],
      [this.#mailboxVerifications, mailboxLimitKey(email)],
    ])
    if (!allowed.ok) return false
    this.#background(async () => {
      const token = await this.#store.accountTokens.issue(
        accountId,
        'verify',
        email,
        VERIFY_TOKEN_TTL_MS,
      )
      await this.#mailer.send({
        to: email,
        subject: 'Confirm your email address for Burrow',
        text:
          `Confirm that ${email} is the address of your Burrow account (the link works once, ` +
          `for three days):\n${this.#serviceUrl}/verify?token=${token}\n\n` +
          `Burrow uses it to get you back into your account if you forget your password.\n`,
      })
    })
    return true
  }

  /** Who verification link `token` is for while it is live (it stays unused), or undefined. */
  verificationHolder(token: string): Promise<AccountTokenHolder | undefined> {
    return this.#store.accountTokens.find(token, 'verify')
  }

  /**
   * Use verification link `token` in a browser signed in to account `accountId`: who it
   * confirmed, or undefined for a dead link or another account's (which stays unused). The
   * signed-in session is the proof that the mailbox's owner holds the account: an address's
   * owner who did not sign up, and a mail scanner that opens links, confirm nothing.
   */
  async verify(token: string, accountId: string): Promise<AccountTokenHolder | undefined> {
    const live = await this.#store.accountTokens.find(token, 'verify')
    if (live?.accountId !== accountId) return undefined
    const holder = await this.#store.accountTokens.use(token, 'verify')
    if (!holder) return undefined
    return (await this.#store.accountTokens.markVerified(holder.accountId, holder.email))
      ? holder
      : undefined
  }

  /** Whether account `accountId`'s address is confirmed. */
  /** Where the browser that sent `req` reads unsent mail: the dev outbox's path, or null. */
  outboxFor(req: IncomingMessage): string | null {
    return this.#outboxFor(req)
  }

  async isVerified(accountId: string): Promise<boolean> {
    return (await this.#store.accountTokens.verifiedAt(accountId)) !== null
  }

  /** Resolves once every mail started so far was handed over (or failed and was logged). */
  async idle(): Promise<void> {
    await Promise.all([...this.#pending])
  }

  /** Release the mailer's connections. */
  close(): void {
    this.#mailer.close()
  }

  #background(work: () => Promise<void>): void {
    const done = work()
      .catch((error: Error) => this.#log.warn(`mail: could not send: ${error.message}`))
      .finally(() => this.#pending.delete(done))
    this.#pending.add(done)
  }
}

/**
 * Spend one request of each limiter's key, in order, or none: those taken before one refuses are
 * given back, so a mail not sent costs nothing. The refusal is the first limiter's that refused.
 */
function takeAll(spends: readonly (readonly [RateLimiter, string])[]): RateDecision {
  for (const [i, [limiter, key]] of spends.entries()) {
    const decision = limiter.take(key)
    if (decision.ok) continue
    for (const [taken, takenKey] of spends.slice(0, i)) taken.giveBack(takenKey)
    return decision
  }
  return { ok: true }
}

/**
 * The key of `email`'s mailbox in the shared limiters: hashed, as keys made from emails are
 * (they travel between nodes).
 */
function mailboxLimitKey(email: string): string {
  return createHash('sha256').update(mailboxKey(email)).digest('base64url')
}

function invalidLink(): StoreError {
  return new StoreError(
    'invalid',
    'this link is not valid any more: it was used, it expired, or a newer one was sent. Ask for a new one',
  )
}
