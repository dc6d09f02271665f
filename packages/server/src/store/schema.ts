/**
 * The database's tables as Kysely sees them. Column names are snake_case as stored; the `Store`
 * maps rows to camelCase objects. Times are ISO-8601 UTC strings with milliseconds
 * (`Date#toISOString`), which sort correctly as text in both SQLite and PostgreSQL.
 */

import type { ColumnType } from 'kysely'
import type { AccessTables } from './access-schema.js'
import type { GovernanceTables } from './governance-schema.js'

/** A nullable column that may be left out of an insert. */
type OptionalNullable<T> = ColumnType<T | null, T | null | undefined, T | null>

/** `accounts`: one customer; owns tunnels. */
export interface AccountsTable {
  /** `acc_` + random hex. */
  id: string
  /** Lower-cased; unique. */
  email: string
  /** Second half of public hostnames; unique, checked by `labelProblem('slug')`. */
  slug: string
  /** A `PlanId`; defaults to `free`. */
  plan: ColumnType<string, string | undefined, string>
  /** ISO-8601 UTC. */
  created_at: string
}

/** `tunnels`: one public endpoint and its key; deleted with its account. */
export interface TunnelsTable {
  /** `tun_` + random hex. */
  id: string
  account_id: string
  /** Friendly name, if any. */
  name: OptionalNullable<string>
  /** First half of the public hostname; unique within the account. */
  subdomain: string
  /** SHA-256 hex of the `mtk_` key; the key itself is never stored. */
  key_hash: string
  /** ISO-8601 UTC. */
  created_at: string
  /** ISO-8601 UTC of the last broker connection, if any. */
  last_seen_at: OptionalNullable<string>
}

/** `settings`: small server-wide values shared by all nodes (e.g. a generated secret). */
export interface SettingsTable {
  key: string
  value: string
}

/**
 * `crash_reports`: error reports sent by `burrow` clients (message and stack only, scrubbed by
 * the client; never MCP traffic). Read by operators with `burrowd crash-reports list`.
 */
export interface CrashReportsTable {
  /** `crash_` + random hex. */
  id: string
  /** ISO-8601 UTC, when burrowd received the report. */
  received_at: string
  /** The client's version, e.g. `0.1.0`. */
  client_version: string
  /** `process.platform` of the client, e.g. `linux`. */
  os: string
  /** `process.arch` of the client, e.g. `x64`. */
  arch: string
  /** `process.version` of the client's Node.js, e.g. `v20.19.0`. */
  node: string
  /** `uncaught` (an uncaught exception or rejection) or `fatal` (the top-level catch). */
  kind: string
  message: string
  stack: string
  /** The subcommand that crashed (`up`, `detect`), if known. */
  command: OptionalNullable<string>
}

/** `usage_counters`: the exact count of one metric of one tunnel in one calendar month. */
export interface UsageCountersTable {
  /** `YYYY-MM`, UTC. First in the primary key: loading a month is a range scan. */
  period: string
  tunnel_id: string
  /** A `UsageMetric`: `tool_calls` or `bandwidth_bytes`. */
  metric: string
  /** Non-negative; PostgreSQL returns `bigint` as a string, SQLite as a number. */
  value: ColumnType<number | string, number, number>
  /** ISO-8601 UTC of the last write. */
  updated_at: string
}

/** The tables the usage counters read and write, for `Kysely<UsageCountersDatabase>`. */
export interface UsageCountersDatabase {
  usage_counters: UsageCountersTable
}

/** `web_sessions`: one signed-in browser. The cookie holds the secret; the row holds its hash. */
export interface WebSessionsTable {
  /** SHA-256 hex of the cookie secret. */
  id: string
  account_id: string
  /** Random; every state-changing form and dashboard call must echo it. */
  csrf_token: string
  /** ISO-8601 UTC. */
  created_at: string
  /** ISO-8601 UTC; the session is refused from then on (renewed while in use). */
  expires_at: string
}

/** `api_tokens`: a bearer token for `/api/*`, shown once when made, revocable by its owner. */
export interface ApiTokensTable {
  /** `tok_` + random hex; what the dashboard lists and revokes. */
  id: string
  account_id: string
  /** The owner's label for it. */
  name: string
  /** SHA-256 hex of the `btk_…` secret. */
  token_hash: string
  /** ISO-8601 UTC. */
  created_at: string
  /** ISO-8601 UTC of the last authenticated call, if any. */
  last_used_at: OptionalNullable<string>
}

/** Columns 004 adds to `accounts`. */
export interface AccountsWebColumns {
  /** `scrypt$…` (`store/password.ts`); null until one is set (operator-made accounts). */
  password_hash: OptionalNullable<string>
}

/** Columns 004 adds to `tunnels`. */
export interface TunnelsWebColumns {
  /**
   * 1 when the owner chose this tunnel to keep serving while the account has more tunnels than
   * its plan allows; serving order is pinned first, then oldest first.
   */
  pinned: ColumnType<number, number | undefined, number>
}

/** Columns 005 adds to `accounts`. */
export interface AccountsBillingColumns {
  /** ISO-8601 UTC; from then on the account is on Free whatever `plan` says. Null: no end. */
  plan_expires_at: OptionalNullable<string>
}

/** `subscriptions`: an account's subscription at the provider, as last synchronised. */
export interface SubscriptionsTable {
  account_id: string
  /** `paddle`, or `dev` for the local stand-in (which speaks Paddle's API too). */
  provider: string
  /** The provider's subscription id (`sub_…`). */
  subscription_id: string
  /** The provider's customer id (`ctm_…`), if known. */
  customer_id: OptionalNullable<string>
  /** The `PlanId` bought: `pro` or `scale`. */
  plan: string
  /** `monthly` or `annual`. */
  cycle: string
  /** The provider's status as sent (`active`, `trialing`, `past_due`, `paused`, `canceled`). */
  status: string
  /** Internal state: `paid`, `paid_until` (cancelled, limits kept to `ends_at`), `past_due`, `free`. */
  state: string
  /** ISO-8601 UTC end of the current billing period, if any. */
  period_ends_at: OptionalNullable<string>
  /** ISO-8601 UTC when a scheduled cancellation takes effect, if any. */
  cancels_at: OptionalNullable<string>
  /** `occurred_at` of the newest event applied: older events no longer change anything. */
  synced_at: string
  /**
   * `synced_at` in microseconds since the Unix epoch, as precise as the provider's time; null in
   * rows from before migration 024. PostgreSQL returns `bigint` as a string, SQLite as a number.
   */
  synced_at_us: OptionalNullable<number | string>
  /** ISO-8601 UTC of the approved chargeback that ended this subscription, until reversed. */
  charged_back_at: OptionalNullable<string>
  /**
   * 1 when the subscription came from a checkout burrowd made for the account (or was bound
   * before migration 031), 0 when only its custom data named the account (bound on Free).
   */
  from_checkout: ColumnType<number, number | undefined, number>
  /** ISO-8601 UTC of the last write. */
  updated_at: string
}

/** `billing_events`: every provider webhook event processed, so duplicates are recognised. */
export interface BillingEventsTable {
  provider: string
  /** The provider's event id (`evt_…`). */
  event_id: string
  /** e.g. `subscription.updated`. */
  type: string
  /** ISO-8601 UTC, the provider's `occurred_at`. */
  occurred_at: string
  /** `occurred_at` in microseconds since the Unix epoch (null before migration 024), as `synced_at_us`. */
  occurred_at_us: OptionalNullable<number | string>
  /** ISO-8601 UTC, when burrowd received it. */
  received_at: string
  account_id: OptionalNullable<string>
  /** The subscription (`sub_…`) a `subscription.*` event was about; null for other events. */
  subscription_id: OptionalNullable<string>
  /**
   * An adjustment's action (`chargeback`, `chargeback_reverse`, `refund`, …); a chargeback Paddle
   * marks `reversed` is recorded as `chargeback_reverse`, the reversal it tells of. Null for
   * other events.
   */
  action: OptionalNullable<string>
  /** The transaction (`txn_…`) an adjustment adjusts, if given; null for other events. */
  transaction_id: OptionalNullable<string>
  /**
   * `applied`, `stale` (older than what was applied), `ignored` (not about a plan, or about a
   * subscription the account has replaced) or `unknown_account` (names no account of ours).
   */
  outcome: string
}

/** `checkout_transactions`: the checkout transactions burrowd made, each for one account. */
export interface CheckoutTransactionsTable {
  provider: string
  /** The provider's transaction id (`txn_…`). */
  transaction_id: string
  account_id: string
  /** ISO-8601 UTC. */
  created_at: string
}

/**
 * `orphan_subscriptions`: subscriptions live at the provider that give their account nothing,
 * to cancel there (`billing/orphan-subscriptions.ts`).
 */
export interface OrphanSubscriptionsTable {
  provider: string
  subscription_id: string
  /** The account it named or was bound to (no foreign key: kept when the account is deleted). */
  account_id: string
  /** `next_billing_period`, or `immediately` for one whose payment is failing. */
  effective_from: string
  /** ISO-8601 UTC. */
  found_at: string
  /** ISO-8601 UTC: when it was cancelled, or the provider refused to; null while waiting. */
  settled_at: OptionalNullable<string>
}

/** `usage_snapshots`: one metric of one tunnel in one month, as of `taken_at`. */
export interface UsageSnapshotsTable {
  /** `YYYY-MM`, UTC. */
  period: string
  tunnel_id: string
  /** `tool_calls` or `bandwidth_bytes`. */
  metric: string
  /** PostgreSQL returns `bigint` as a string, SQLite as a number. */
  value: ColumnType<number | string, number, number>
  /** ISO-8601 UTC of the snapshot that wrote this row. */
  taken_at: string
}

/** `webhook_endpoints`: where an account wants its events sent. */
export interface WebhookEndpointsTable {
  /** `we_` + random hex. */
  id: string
  account_id: string
  url: string
  /** `whsec_` + base64 of 32 random bytes (Standard Webhooks); shown to the owner. */
  secret: string
  /** The secret a rotation replaced: it signs deliveries too until the time below. */
  previous_secret: OptionalNullable<string>
  /** ISO-8601 UTC until which `previous_secret` signs. */
  previous_secret_expires_at: OptionalNullable<string>
  /** Comma-separated event types, e.g. `quota.warning`. */
  events: string
  /** ISO-8601 UTC. */
  created_at: string
  /** ISO-8601 UTC when burrowd stopped sending to it, if it did. */
  disabled_at: OptionalNullable<string>
  /** Why it was disabled, shown in the dashboard. */
  disabled_reason: OptionalNullable<string>
  /** Deliveries that failed in a row since the last success. */
  consecutive_failures: ColumnType<number, number | undefined, number>
}

/** `webhook_deliveries`: one event for one endpoint; the outbox and the delivery log. */
export interface WebhookDeliveriesTable {
  /** `msg_` + random, or deterministic for `quota.warning`; the `webhook-id` header. */
  id: string
  endpoint_id: string
  account_id: string
  /** e.g. `quota.warning`. */
  type: string
  /** The JSON body sent, byte for byte on every attempt. */
  payload: string
  /** `pending`, `delivered`, `failed` (gave up) or `cancelled` (endpoint gone or disabled). */
  status: string
  attempts: ColumnType<number, number | undefined, number>
  /** ISO-8601 UTC of the next attempt while pending. */
  next_attempt_at: OptionalNullable<string>
  /** ISO-8601 UTC of the last attempt, its HTTP status and error, for the delivery log. */
  last_attempt_at: OptionalNullable<string>
  last_status: OptionalNullable<number>
  last_error: OptionalNullable<string>
  /**
   * ISO-8601 UTC since when the pending attempt has been put off, never made (burrowd's name
   * lookups were busy), or null (migration 026).
   */
  postponed_since: OptionalNullable<string>
  /** ISO-8601 UTC. */
  created_at: string
}

/** `quota_warnings`: one row per tunnel, metric and month for which `quota.warning` fired. */
export interface QuotaWarningsTable {
  tunnel_id: string
  /** `YYYY-MM`, UTC. */
  period: string
  metric: string
  /** ISO-8601 UTC. */
  created_at: string
}

/** Columns migration 010 adds to `accounts`. */
export interface AccountsRecoveryColumns {
  /** ISO-8601 UTC when the account's email address was confirmed, or null. */
  email_verified_at: OptionalNullable<string>
}

/** Mailed single-use tokens (`account_tokens`, migration 010). */
export interface AccountTokensTable {
  /** SHA-256 (hex) of the token's secret; the secret itself is only in the email. */
  token_hash: string
  account_id: string
  /** `reset` (password) or `verify` (email address). */
  purpose: string
  /** The address the token was sent to (a verification confirms exactly that address). */
  email: string
  created_at: string
  expires_at: string
  /** ISO-8601 UTC when it was used; a used token never works again. */
  used_at: OptionalNullable<string>
}

/** `custom_domains`: a domain a tunnel's owner added (migration 012, domains/). */
export interface CustomDomainsTable {
  /** `dom_` + random hex. */
  id: string
  /** ASCII (punycode), lower-case, no trailing dot; unique among verified rows. */
  domain: string
  /** At most one domain per tunnel. */
  tunnel_id: string
  account_id: string
  /** What the TXT record `_burrow-challenge.<domain>` must hold. */
  token: string
  /** `pending` or `verified`. */
  state: string
  created_at: string
  checked_at: OptionalNullable<string>
  verified_at: OptionalNullable<string>
  failing_since: OptionalNullable<string>
  problem: OptionalNullable<string>
  /** How many checks have begun (migration 035): each takes the next number. */
  checks_begun: ColumnType<number, number | undefined, number>
  /** The number of the check whose result is stored (0 before the first). */
  stored_check: ColumnType<number, number | undefined, number>
  /** When a scheduled check that failed is due again; null when none failed since a result. */
  retry_at: OptionalNullable<string>
  /** Scheduled checks failed in a row since the last stored result. */
  failed_checks: ColumnType<number, number | undefined, number>
}

/** `released_tunnels`: an account's tunnels deleted this month (`released-tunnels.ts`). */
export interface ReleasedTunnelsTable {
  account_id: string
  tunnel_id: string
  released_at: string
}

/** The whole database, for `Kysely<Database>`. */
export interface Database extends AccessTables, GovernanceTables {
  accounts: AccountsTable & AccountsWebColumns & AccountsBillingColumns & AccountsRecoveryColumns
  account_tokens: AccountTokensTable
  tunnels: TunnelsTable & TunnelsWebColumns
  settings: SettingsTable
  crash_reports: CrashReportsTable
  usage_counters: UsageCountersTable
  web_sessions: WebSessionsTable
  api_tokens: ApiTokensTable
  subscriptions: SubscriptionsTable
  billing_events: BillingEventsTable
  checkout_transactions: CheckoutTransactionsTable
  orphan_subscriptions: OrphanSubscriptionsTable
  usage_snapshots: UsageSnapshotsTable
  webhook_endpoints: WebhookEndpointsTable
  webhook_deliveries: WebhookDeliveriesTable
  quota_warnings: QuotaWarningsTable
  custom_domains: CustomDomainsTable
  released_tunnels: ReleasedTunnelsTable
}
