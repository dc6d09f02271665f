/**
 * The client configuration snippet (docs/decisions.md, Names and URLs), which `burrow up` prints
 * and the dashboard and API show: `{"mcpServers": {"<entry>": {"url": "<public_url>/mcp"}}}`, with
 * `headers` when agents must send one (a `token` tunnel: a placeholder for the agent token).
 */

/** Where the agent token goes in a `token` tunnel's snippet, for the reader to replace. */
export const AGENT_TOKEN_PLACEHOLDER = 'atk_…'

/** One snippet entry. */
export interface SnippetEntry {
  url: string
  headers?: Record<string, string>
}

/** The snippet's entry name: `burrow`, or `<NAME>-via-tunnel` with unsafe characters as `-`. */
export function snippetEntryName(name: string | null): string {
  if (!name) return 'burrow'
  return `${name.replace(/[^A-Za-z0-9_-]/g, '-')}-via-tunnel`
}

/**
 * The headers agents of a tunnel in access mode `mode` must send, for its snippet: a `token`
 * tunnel's `Authorization: Bearer <token>` (`token` only where it was just made and shown, else
 * the placeholder); none for `oauth` (agents sign in by themselves), `public` or an unknown mode.
 */
export function accessHeaders(
  mode: string | undefined,
  token: string = AGENT_TOKEN_PLACEHOLDER,
): Record<string, string> | undefined {
  return mode === 'token' ? { Authorization: `Bearer ${token}` } : undefined
}

/** The entry for a public URL (without `/mcp`), with `headers` when given. */
export function snippetEntry(publicUrl: string, headers?: Record<string, string>): SnippetEntry {
  return headers ? { url: `${publicUrl}/mcp`, headers } : { url: `${publicUrl}/mcp` }
}

/** The `mcpServers` snippet for a public URL (without `/mcp`). */
export function clientSnippet(
  publicUrl: string,
  name: string | null,
  headers?: Record<string, string>,
): { mcpServers: Record<string, SnippetEntry> } {
  return { mcpServers: { [snippetEntryName(name)]: snippetEntry(publicUrl, headers) } }
}
