/**
 * The client snippet shown with an agent token just made, by the dashboard's Access tab and the
 * JSON API's answer alike: for a `token` tunnel, its snippet (at its custom domain when one
 * serves it) with the new secret in the header in place of the placeholder; null for other
 * modes, whose agents send no agent token.
 */
import { accessHeaders, clientSnippet, type SnippetEntry } from '@burrow/protocol'
import type { TunnelWithAccess } from './tunnel-view.js'

/** The snippet with `secret` for `t`, or null when `t` is not in `token` mode. */
export function agentTokenSnippet(
  t: TunnelWithAccess,
  secret: string,
): { mcpServers: Record<string, SnippetEntry> } | null {
  if (t.accessMode !== 'token') return null
  return clientSnippet(t.customUrl ?? t.publicUrl, t.name, accessHeaders(t.accessMode, secret))
}
