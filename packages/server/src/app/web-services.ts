/**
 * What the dashboard and the JSON API need from the rest of burrowd, as one narrow interface:
 * accounts and sign-in, sessions, API tokens, tunnels, live tunnel state, billing, meters and
 * webhook endpoints. `wire-services.ts` builds it from the store, the registry and the billing
 * and webhook modules; every tunnel, token and endpoint call is scoped to an account.
 */
import type { BillingCycle, PlanId } from '../plans.js'
import type { GovernancePort } from './governance-port.js'
import type { DomainsPort } from './domains-port.js'
import type { AccessWriteLimits } from './access-write-limits.js'
import type { MetricsReportLimits } from './metrics-report-limits.js'
import type { AccessPort } from './access-port.js'
import type { BillingHistoryView, MetersView, SubscriptionView } from './billing-view.js'
import type { LiveUsagePort } from './live-meters.js'
import type { TokenView } from './token-view.js'
import type { TunnelView } from './tunnel-view.js'
import type { WebhookDeliveryView, WebhookEndpointView } from './webhook-endpoint-view.js'

/** An account as the web side sees it; `plan` is the plan in force now. */
export interface AccountView {
  readonly id: string
  readonly email: string
  readonly slug: string
  readonly plan: PlanId
  readonly planExpiresAt: Date | null
}

/** A tunnel record before the live state is added. */
export type TunnelRecord = Omit<TunnelView, 'online' | 'publicUrl'>

/** Sign-up, sign-in and account reads. Errors are `StoreError`s with messages fit to show. */
export interface AccountsPort {
  create(input: { email: string; slug: string; password: string }): Promise<AccountView>
  verifyLogin(email: string, password: string): Promise<AccountView | undefined>
  /** What names the account's current password (for device cookies); empty when there is none. */
  passwordStamp(email: string): Promise<string>
  get(id: string): Promise<AccountView | undefined>
  /**
   * Replace the account's password (its sessions stay: end the others with
   * `SessionsPort.deleteOthers`) and void its unused reset links; returns the new password's
   * stamp. With `replacing`, only while the password is still the one of that stamp (the one
   * the caller checked): StoreError `conflict` when a reset replaced it meanwhile. StoreError
   * `invalid` for a password the sign-up form would refuse.
   */
  setPassword(accountId: string, password: string, replacing?: string): Promise<string>
}

/** Browser sessions. */
export interface SessionsPort {
  /** A new session; with `passwordStamp` (a sign-in), only while the password is still that one. */
  create(
    accountId: string,
    passwordStamp?: string,
  ): Promise<{ token: string; csrfToken: string; expiresAt: Date }>
  /** The live session, with its expiry (renewed as it is used), or undefined. */
  find(
    token: string,
  ): Promise<{ accountId: string; csrfToken: string; expiresAt: Date } | undefined>
  delete(token: string): Promise<void>
  /** Sign out every session of the account but `keepToken`'s; how many ended. */
  deleteOthers(accountId: string, keepToken: string): Promise<number>
}

/** API tokens. */
export interface TokensPort {
  create(accountId: string, name: string): Promise<{ token: TokenView; secret: string }>
  list(accountId: string): Promise<TokenView[]>
  revoke(accountId: string, id: string): Promise<boolean>
  /** Revoke every token of the account at once (tokens being made meanwhile included). */
  revokeAll(accountId: string): Promise<void>
  authenticate(secret: string): Promise<{ accountId: string; tokenId: string } | undefined>
}

/** Tunnels of one account (StoreError `plan_limit` beyond the plan, `not_found` for others'). */
export interface TunnelsPort {
  create(
    accountId: string,
    input: { name?: string; subdomain?: string },
  ): Promise<{ tunnel: TunnelRecord; key: string }>
  list(accountId: string): Promise<TunnelRecord[]>
  get(accountId: string, id: string): Promise<TunnelRecord | undefined>
  rename(accountId: string, id: string, name: string | null): Promise<void>
  /**
   * Give the tunnel a new key. Its clients with the old key are cut off (`LivePort#disconnect`,
   * with `reason`) as soon as the new key is written, whether or not what follows succeeds.
   */
  rotateKey(
    accountId: string,
    id: string,
    reason?: string,
  ): Promise<{ tunnel: TunnelRecord; key: string }>
  /**
   * Delete the tunnel. Its clients are cut off (`LivePort#disconnect`) as soon as the delete is
   * written, and the account's cached tunnels dropped, whether or not what follows succeeds.
   */
  delete(accountId: string, id: string): Promise<void>
  chooseServing(accountId: string, ids: string[]): Promise<void>
}

/** What the running service knows about connected tunnels. */
export interface LivePort {
  isOnline(tunnelId: string): boolean
  /** Drop the tunnel's client connection (its key was rotated or the tunnel deleted). */
  disconnect(tunnelId: string, reason: string): void
  /** Forget cached routing and plan data of an account's tunnels. */
  evictAccount(accountId: string): void
}

/** The payment provider, through the billing module. */
export interface BillingPort {
  /** Origins the checkout may live on, for the CSP's form-action. */
  readonly checkoutOrigins: readonly string[]
  checkoutUrl(
    account: { id: string; email: string },
    plan: 'pro' | 'scale',
    cycle: BillingCycle,
    successUrl: string,
  ): Promise<string>
  cancel(accountId: string): Promise<void>
  switchCycle(accountId: string, cycle: BillingCycle): Promise<void>
  /** What moving to `plan` (same cycle) costs now, as the provider prorates it. */
  previewPlanChange(accountId: string, plan: 'pro' | 'scale'): Promise<PlanChangePreview>
  /** Move the subscription to `plan` on the same cycle, prorated by the provider. */
  changePlan(accountId: string, plan: 'pro' | 'scale'): Promise<void>
  subscription(accountId: string): Promise<SubscriptionView | null>
  /** The account's billing history, newest first. */
  history(accountId: string): Promise<BillingHistoryView[]>
}

/** A plan change before it is made: from and to, and the provider's proration. */
export interface PlanChangePreview {
  readonly from: PlanId
  readonly to: 'pro' | 'scale'
  readonly cycle: BillingCycle
  readonly currency: string
  readonly creditCents: number
  readonly chargeCents: number
  /** `charge`: paid now; `credit`: kept by the provider against the next bills. */
  readonly action: 'charge' | 'credit'
  readonly amountCents: number
}

/** Webhook endpoints of one account. */
export interface WebhooksPort {
  create(accountId: string, input: { url: string; events?: string[] }): Promise<WebhookEndpointView>
  list(accountId: string): Promise<WebhookEndpointView[]>
  get(accountId: string, id: string): Promise<WebhookEndpointView | undefined>
  delete(accountId: string, id: string): Promise<boolean>
  enable(accountId: string, id: string): Promise<boolean>
  /** A new signing secret; the replaced one signs too for a day. Undefined when absent. */
  rotateSecret(accountId: string, id: string): Promise<WebhookEndpointView | undefined>
  deliveries(accountId: string, id: string): Promise<WebhookDeliveryView[]>
}

/** Everything the web side needs. */
export interface WebServices {
  readonly accounts: AccountsPort
  readonly sessions: SessionsPort
  readonly tokens: TokensPort
  readonly tunnels: TunnelsPort
  readonly live: LivePort
  readonly billing: BillingPort
  readonly webhooks: WebhooksPort
  /** Tunnels' governance: policy, calls, metrics, live tail. */
  readonly governance: GovernancePort
  /** Who may call each tunnel: access modes, allowlists, agent tokens, connected agents. */
  readonly access: AccessPort
  /** How often an owner may change a tunnel's access or rotate its key (spent before the write). */
  readonly accessWrites: AccessWriteLimits
  /** How often an account may ask for metrics reports (spent before the report is read). */
  readonly metricsReports: MetricsReportLimits
  /** This month's meters of an account, from the last snapshot. */
  meters(accountId: string, now: Date): Promise<MetersView>
  /** A tunnel's live usage counters; absent when quotas are off. */
  readonly liveUsage?: LiveUsagePort
  /** A tunnel's public URL (without `/mcp`). */
  publicUrl(subdomain: string, slug: string): string
  /** Custom domains of tunnels; absent where burrowd runs without them (some tests). */
  readonly domains?: DomainsPort
}
