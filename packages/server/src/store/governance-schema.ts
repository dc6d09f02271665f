/**
 * The tables of governance as Kysely sees them (migrations 006, 008, 009 and 013: the call
 * history, policies and their versions, rug-pull's baselines, pins and approvals, per-method
 * metrics). Part of `Database` in `schema.ts`.
 */
import type { ColumnType } from 'kysely'
import type { CallHistoryAgentColumns } from './access-schema.js'

type OptionalNullable<T> = ColumnType<T | null, T | null | undefined, T | null>

/** `call_history`: one JSON-RPC request that reached the edge for a tunnel. */
export interface CallHistoryTable {
  /** `call_` + the arrival in milliseconds (12 hex digits) + 12 random hex digits. */
  id: string
  tunnel_id: string
  /** ISO-8601 UTC when the request arrived. */
  at: string
  /** JSON-RPC method, e.g. `tools/call`. */
  method: string
  /** The tool's name for `tools/call`, else null. */
  tool: OptionalNullable<string>
  /** HTTP status answered to the agent. */
  status: number
  /** Refusal policy code when the edge refused it (`quota_exceeded`…), else null. */
  policy_code: OptionalNullable<string>
  /** Milliseconds from arrival to response head (bigint on PostgreSQL: read as text there). */
  duration_ms: number
  /** The MCP session (or agent) the request came from. */
  session_id: OptionalNullable<string>
  /** The JSON-RPC id as JSON text (`1`, `"abc"`). */
  rpc_id: OptionalNullable<string>
  /** `ok`, `error` (a JSON-RPC error or a tool result with isError), or `refused`. */
  outcome: OptionalNullable<string>
  /** Request and response body bytes (bigint on PostgreSQL: read as text there). */
  bytes_in: OptionalNullable<number>
  bytes_out: OptionalNullable<number>
  /** The request and response as stored: redacted JSON, cut at 64 KiB; null in zero-knowledge mode. */
  request_body: OptionalNullable<string>
  response_body: OptionalNullable<string>
  /** 1 when a stored body was cut. */
  bodies_cut: OptionalNullable<number>
  /** The first call of the chain a 2026-07-28 retry (`requestState`) continues, else null. */
  continues: OptionalNullable<string>
}

/** `tunnel_policies`: a tunnel's current governance policy (no row: the default policy). */
export interface TunnelPoliciesTable {
  tunnel_id: string
  /** 1 for the first policy set, then one more per change. */
  version: number
  /** The policy document as JSON (governance/policy.ts). */
  document: string
  updated_at: string
  /** Who changed it: `dashboard: <email>` or `api token: <name>`. */
  updated_by: string
}

/** `policy_versions`: every policy a tunnel has had. */
export interface PolicyVersionsTable {
  tunnel_id: string
  version: number
  document: string
  changed_at: string
  changed_by: string
}

/** `tool_baselines`: a tunnel whose first complete tool list was taken as approved. */
export interface ToolBaselinesTable {
  tunnel_id: string
  taken_at: string
  list_changed_at: OptionalNullable<string>
}

/** `tool_pins`: one tool of a tunnel, approved and as last seen (governance/tool-pins.ts). */
export interface ToolPinsTable {
  tunnel_id: string
  name: string
  /** approved, changed, new, renamed, removed or rejected. */
  status: string
  approved_hash: OptionalNullable<string>
  /** Canonical JSON; null in zero-knowledge mode. */
  approved_definition: OptionalNullable<string>
  approved_body_hash: OptionalNullable<string>
  current_hash: OptionalNullable<string>
  current_definition: OptionalNullable<string>
  current_body_hash: OptionalNullable<string>
  renamed_from: OptionalNullable<string>
  changed_at: OptionalNullable<string>
  approved_at: OptionalNullable<string>
  approved_by: OptionalNullable<string>
  /** The field set `approved_hash` covers (governance/tool-definition.ts); null is form 1. */
  approved_form: OptionalNullable<number>
  /** The field set `current_hash` covers; null is form 1. */
  current_form: OptionalNullable<number>
  /** JSON of the definitions rejected and not approved since (store/rejected-hashes.ts); null: none. */
  rejected_hashes: OptionalNullable<string>
}

/** `tool_approvals`: every approval or rejection of a tool's definition. */
export interface ToolApprovalsTable {
  id: string
  tunnel_id: string
  name: string
  /** approved or rejected. */
  decision: string
  hash: OptionalNullable<string>
  decided_at: string
  decided_by: string
}

/** `call_metrics`: per-method metrics of one tunnel, period, method, tool and outcome. */
export interface CallMetricsTable {
  tunnel_id: string
  /** `5m` or `1h`: the length of the period. */
  span: string
  /** ISO-8601 UTC of the period's start. */
  period_start: string
  method: string
  /** The tool, prompt or resource a call named; '' for none. */
  tool: string
  /** `ok`, `error`, or the refusal's policy code. */
  outcome: string
  count: ColumnType<number | string, number, number>
  /** Latency bucket counts h0…h63 (governance/latency-buckets.ts). */
  [bucket: `h${number}`]: ColumnType<number | string, number | undefined, number>
}

/** The governance tables, for `Database`. */
export interface GovernanceTables {
  call_history: CallHistoryTable & CallHistoryAgentColumns
  tunnel_policies: TunnelPoliciesTable
  policy_versions: PolicyVersionsTable
  call_metrics: CallMetricsTable
  tool_baselines: ToolBaselinesTable
  tool_pins: ToolPinsTable
  tool_approvals: ToolApprovalsTable
}
