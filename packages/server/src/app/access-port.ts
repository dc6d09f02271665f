/**
 * What the dashboard and the JSON API need to manage who may call a tunnel: its access settings,
 * its agent tokens and the OAuth clients its owner connected. Every call names a tunnel the
 * caller's account owns (the routes check that first).
 */
import type { TunnelAccess } from '../store/tunnel-access-row.js'

/** An agent token as shown to its owner. */
export interface AgentTokenView {
  readonly id: string
  readonly name: string
  readonly createdAt: Date
  readonly lastUsedAt: Date | null
}

/** An OAuth client the owner approved for the tunnel. */
export interface ConnectedAgentView {
  /** The grant's id (`grant_…`): what revoking names. */
  readonly id: string
  readonly clientId: string
  readonly clientName: string
  /** Email of who approved it. */
  readonly approvedBy: string
  readonly createdAt: Date
  readonly lastUsedAt: Date | null
}

/** Access management of the caller's tunnels. */
export interface AccessPort {
  settings(tunnelId: string): Promise<TunnelAccess>
  /** The access mode of each of `tunnelIds` (for lists). */
  modes(tunnelIds: readonly string[]): Promise<Map<string, TunnelAccess['mode']>>
  /** Store new settings; they apply to the next request, and end open ones they refuse, on every node. */
  setSettings(tunnelId: string, access: TunnelAccess): Promise<TunnelAccess>
  agentTokens(tunnelId: string): Promise<AgentTokenView[]>
  createAgentToken(
    tunnelId: string,
    name: string,
  ): Promise<{ token: AgentTokenView; secret: string }>
  revokeAgentToken(tunnelId: string, id: string): Promise<boolean>
  connectedAgents(tunnelId: string): Promise<ConnectedAgentView[]>
  /** End a connected agent's grant: its access and refresh tokens stop working at once. */
  revokeAgent(tunnelId: string, grantId: string): Promise<boolean>
  /** End every agent token and OAuth grant of the tunnel (approved or waiting for its code). */
  revokeAll(tunnelId: string): Promise<void>
}
