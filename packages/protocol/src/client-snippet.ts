/**
 * The client configuration snippet (docs/decisions.md, Names and URLs), which `burrow up` prints
 * and the dashboard shows: `{"mcpServers": {"<entry>": {"url": "<public_url>/mcp"}}}`, with
 * `headers` when agents must send one (a `token` tunnel: a placeholder for the agent token).
 */

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
