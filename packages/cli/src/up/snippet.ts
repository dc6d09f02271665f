/**
 * What `burrow up` prints on a fresh connection: the public URL, what it forwards to, who may
 * call the tunnel (access-lines.ts), and the client configuration snippet (`clientSnippet` of
 * @burrow/protocol, plus the editor variant wrapped in `"mcp"`), with the agent-token header in it
 * when the tunnel wants one. The public URL is the broker's word, unchecked by the codec: it is
 * printed escaped (printable.ts), so a broker cannot write terminal escape sequences through it.
 */
import { clientSnippet, snippetEntry, snippetEntryName } from '@burrow/protocol'
import { printable, printableJson } from '../printable.js'
import { accessLines, snippetHeaders, type AccessWelcome } from './access-lines.js'

export { clientSnippet, snippetEntryName }

/** The whole announcement printed once per fresh connection. */
export function announcement(
  welcome: AccessWelcome,
  upstream: string,
  name: string | null,
): string {
  const { publicUrl } = welcome
  const headers = snippetHeaders(welcome.access)
  const entry = { [snippetEntryName(name)]: snippetEntry(publicUrl, headers) }
  const main = printableJson(JSON.stringify(clientSnippet(publicUrl, name, headers), null, 2))
  const editor = `"mcp": ${printableJson(JSON.stringify({ servers: entry }, null, 2))}`
  return [
    '',
    `Tunnel online:  ${printable(publicUrl)}/mcp`,
    `Forwarding to:  ${upstream}`,
    ...accessLines(welcome),
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
