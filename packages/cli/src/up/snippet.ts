/**
 * What `burrow up` prints on a fresh connection: the public URL, what it forwards to, and the
 * client configuration snippet (`clientSnippet` of @burrow/protocol, plus the editor variant
 * wrapped in `"mcp"`).
 */
import { clientSnippet, snippetEntryName } from '@burrow/protocol'

export { clientSnippet, snippetEntryName }

/** The whole announcement printed once per fresh connection. */
export function announcement(publicUrl: string, upstream: string, name: string | null): string {
  const entry = { [snippetEntryName(name)]: { url: `${publicUrl}/mcp` } }
  const main = JSON.stringify(clientSnippet(publicUrl, name), null, 2)
  const editor = `"mcp": ${JSON.stringify({ servers: entry }, null, 2)}`
  return [
    '',
    `Tunnel online:  ${publicUrl}/mcp`,
    `Forwarding to:  ${upstream}`,
    '',
    'Add it to your MCP client (Claude Desktop, Cursor, Windsurf, Claude Code .mcp.json):',
    main,
    '',
    'VS Code (settings.json):',
    editor,
    '',
  ].join('\n')
}

/** First line of `up`: whether crash reports are sent (docs/decisions.md, The CLI). */
export function telemetryBanner(enabled: boolean): string {
  return enabled
    ? 'Crash reports are enabled (errors only, never MCP traffic); opt out with --no-telemetry or BURROW_NO_TELEMETRY=1'
    : 'Crash reports are disabled (--no-telemetry); nothing is sent off this machine'
}
