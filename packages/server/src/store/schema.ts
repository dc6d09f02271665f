/**
 * The database's tables as Kysely sees them. Column names are snake_case as stored; the `Store`
 * maps rows to camelCase objects. Times are ISO-8601 UTC strings with milliseconds
 * (`Date#toISOString`), which sort correctly as text in both SQLite and PostgreSQL.
 */

import type { ColumnType } from 'kysely'
import type {
  AccountsWebColumns,
  ApiTokensTable,
  TunnelsWebColumns,
  WebSessionsTable,
} from '../accounts/accounts-migration.js'
import type {
  AccountsBillingColumns,
  BillingEventsTable,
  SubscriptionsTable,
} from '../billing/billing-migration.js'
import type { CallHistoryTable, UsageSnapshotsTable } from '../quota/meters-migration.js'
import type { UsageCountersTable } from '../quota/usage-migration.js'
import type {
  QuotaWarningsTable,
  WebhookDeliveriesTable,
  WebhookEndpointsTable,
} from '../webhooks/webhooks-migration.js'

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

/** The whole database, for `Kysely<Database>`. */
export interface Database {
  accounts: AccountsTable & AccountsWebColumns & AccountsBillingColumns
  tunnels: TunnelsTable & TunnelsWebColumns
  settings: SettingsTable
  crash_reports: CrashReportsTable
  usage_counters: UsageCountersTable
  web_sessions: WebSessionsTable
  api_tokens: ApiTokensTable
  subscriptions: SubscriptionsTable
  billing_events: BillingEventsTable
  usage_snapshots: UsageSnapshotsTable
  call_history: CallHistoryTable
  webhook_endpoints: WebhookEndpointsTable
  webhook_deliveries: WebhookDeliveriesTable
  quota_warnings: QuotaWarningsTable
}
