/**
 * The tables of migration `011_access` as Kysely sees them (who may call a tunnel: access modes,
 * agent tokens, OAuth clients, grants and codes). Part of `Database` in `schema.ts`.
 */
import type { ColumnType } from 'kysely'

type OptionalNullable<T> = ColumnType<T | null, T | null | undefined, T | null>

/** `tunnel_access`: a tunnel's access mode and IP allowlist (no row: `oauth`, no allowlist). */
export interface TunnelAccessTable {
  tunnel_id: string
  /** `oauth`, `token` or `public`. */
  mode: string
  /** JSON array of CIDRs (`203.0.113.0/24`, `::1/128`); `[]` for no allowlist. */
  allow_ips: string
  updated_at: string
}

/** `agent_tokens`: a static bearer token (`atk_…`) that may call one tunnel in `token` mode. */
export interface AgentTokensTable {
  /** `agt_` + random hex; what the owner lists and revokes. */
  id: string
  tunnel_id: string
  name: string
  /** SHA-256 hex of the `atk_…` secret. */
  token_hash: string
  created_at: string
  last_used_at: OptionalNullable<string>
}

/** `oauth_clients`: an OAuth client burrowd knows (a fetched CIMD or a DCR registration). */
export interface OauthClientsTable {
  /** The CIMD URL, or `dcr_` + random hex for a registered client. */
  client_id: string
  /** `cimd` or `dcr`. */
  kind: string
  /** `client_name`, or the client id's host when none is given. */
  name: string
  /** JSON array of the exact redirect URIs allowed. */
  redirect_uris: string
  /** The metadata as received (JSON). */
  document: string
  created_at: string
  /** When a CIMD was last fetched (documents are cached, then fetched again). */
  fetched_at: string
}

/** `oauth_grants`: one client approved for one tunnel by its owner; revoking deletes it. */
export interface OauthGrantsTable {
  /** `grant_` + random hex; access tokens carry it and stop working when it is deleted. */
  id: string
  tunnel_id: string
  account_id: string
  client_id: string
  client_name: string
  /** Email of the account owner who approved it. */
  approved_by: string
  /** The tunnel's MCP URL the tokens are bound to (RFC 8707). */
  resource: string
  created_at: string
  last_used_at: OptionalNullable<string>
  /** SHA-256 hex of the current refresh token; null before the code is redeemed. */
  refresh_hash: OptionalNullable<string>
  /** The one it last replaced, as 011 kept it; no longer written (014 keeps them all). */
  previous_refresh_hash: OptionalNullable<string>
  refresh_expires_at: OptionalNullable<string>
}

/** `oauth_codes`: a single-use authorization code (marked used when redeemed, kept with its grant). */
export interface OauthCodesTable {
  /** SHA-256 hex of the code. */
  code_hash: string
  grant_id: string
  redirect_uri: string
  /** The PKCE S256 challenge. */
  code_challenge: string
  expires_at: string
  /** When it was redeemed; null until then (016). */
  used_at: OptionalNullable<string>
}

/** The column 011 adds to `call_history`. */
export interface CallHistoryAgentColumns {
  /** The admitted agent, `<name> (<grant or agent token id>)`; null for public tunnels. */
  agent: OptionalNullable<string>
}

/**
 * `oauth_replaced_refresh` (014): a refresh token a grant replaced, remembered until it would
 * have expired; presenting it means it leaked, and the grant is revoked.
 */
export interface OauthReplacedRefreshTable {
  /** SHA-256 hex of the replaced token. */
  refresh_hash: string
  grant_id: string
  /** When the row may go: the replacing token's expiry, which bounds the replaced one's. */
  expires_at: string
}

/** The tables of `011_access`, and 014's. */
export interface AccessTables {
  tunnel_access: TunnelAccessTable
  agent_tokens: AgentTokensTable
  oauth_clients: OauthClientsTable
  oauth_grants: OauthGrantsTable
  oauth_codes: OauthCodesTable
  oauth_replaced_refresh: OauthReplacedRefreshTable
}
