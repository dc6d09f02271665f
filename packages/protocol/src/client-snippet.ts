/**
 * The client configuration snippet (docs/decisions.md, Names and URLs), which `burrow up` prints
 * and the dashboard shows: `{"mcpServers": {"<entry>": {"url": "<public_url>/mcp"}}}`.
 */

/** The snippet's entry name: `burrow`, or `<NAME>-via-tunnel` with unsafe characters as `-`. */
export function snippetEntryName(name: string | null): string {
  if (!name) return 'burrow'
  return `${name.replace(/[^A-Za-z0-9_-]/g, '-')}-via-tunnel`
}

/** The `mcpServers` snippet for a public URL (without `/mcp`). */
export function clientSnippet(
  publicUrl: string,
  name: string | null,
): { mcpServers: Record<string, { url: string }> } {
  return { mcpServers: { [snippetEntryName(name)]: { url: `${publicUrl}/mcp` } } }
}
