/**
 * The `AccessPort` the dashboard and API use, over the access stores; changes to a tunnel's
 * settings or grants also reach the edge's caches on this node at once.
 */
import type { AccessPort } from '../app/access-port.js'
import type { AgentTokenStore } from '../store/agent-token-store.js'
import type { OauthGrantStore } from '../store/oauth-grant-store.js'
import type { TunnelAccessStore } from '../store/tunnel-access-store.js'
import type { AccessGate } from './access-gate.js'

/** What `storeAccessPort` is built on. */
export interface AccessPortParts {
  readonly settings: TunnelAccessStore
  readonly agentTokens: AgentTokenStore
  readonly grants: OauthGrantStore
  readonly gate: AccessGate
  /** Called when a grant is revoked, so a cached verification ends now. */
  readonly onGrantRevoked?: (grantId: string) => void
}

/** The access port over the stores. */
export function storeAccessPort(parts: AccessPortParts): AccessPort {
  return {
    settings: (tunnelId) => parts.settings.get(tunnelId),
    modes: (tunnelIds) => parts.settings.modes(tunnelIds),
    async setSettings(tunnelId, access) {
      const stored = await parts.settings.set(tunnelId, access)
      parts.gate.invalidate(tunnelId)
      return stored
    },
    agentTokens: (tunnelId) => parts.agentTokens.list(tunnelId),
    createAgentToken: (tunnelId, name) => parts.agentTokens.create(tunnelId, name),
    revokeAgentToken: (tunnelId, id) => parts.agentTokens.revoke(tunnelId, id),
    connectedAgents: async (tunnelId) => parts.grants.list(tunnelId),
    async revokeAgent(tunnelId, grantId) {
      const done = await parts.grants.revoke(tunnelId, grantId)
      if (done) parts.onGrantRevoked?.(grantId)
      return done
    },
    async revokeAll(tunnelId) {
      await parts.agentTokens.revokeAll(tunnelId)
      await parts.grants.revokeAll(tunnelId)
    },
  }
}
