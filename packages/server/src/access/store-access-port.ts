/**
 * The `AccessPort` the dashboard and API use, over the access stores; changes to a tunnel's
 * settings or grants also reach the edge's caches on this node at once, and every node (this one
 * included) is told, so that each drops its cached settings and ends the open requests of the
 * tunnel its gate no longer admits.
 */
import type { AccessPort } from '../app/access-port.js'
import type { AgentTokenStore } from '../store/agent-token-store.js'
import type { OauthGrantStore } from '../store/oauth-grant-store.js'
import type { TunnelAccessStore } from '../store/tunnel-access-store.js'
import type { AccessGate } from './access-gate.js'
import type { ClusterEvents } from '../cluster/cluster-events.js'

/** What `storeAccessPort` is built on. */
export interface AccessPortParts {
  readonly settings: TunnelAccessStore
  readonly agentTokens: AgentTokenStore
  readonly grants: OauthGrantStore
  readonly gate: AccessGate
  /** Called when a grant is revoked, so a cached verification ends now. */
  readonly onGrantRevoked?: (grantId: string) => void
  /** Where a change of a tunnel's access is told (an `access` event); none if absent. */
  readonly events?: ClusterEvents
}

/** The access port over the stores. */
export function storeAccessPort(parts: AccessPortParts): AccessPort {
  const changed = (tunnelId: string) => parts.events?.publish({ type: 'access', tunnelId })
  return {
    settings: (tunnelId) => parts.settings.get(tunnelId),
    modes: (tunnelIds) => parts.settings.modes(tunnelIds),
    async setSettings(tunnelId, access) {
      const stored = await parts.settings.set(tunnelId, access)
      parts.gate.invalidate(tunnelId)
      await changed(tunnelId)
      return stored
    },
    agentTokens: (tunnelId) => parts.agentTokens.list(tunnelId),
    createAgentToken: (tunnelId, name) => parts.agentTokens.create(tunnelId, name),
    async revokeAgentToken(tunnelId, id) {
      const done = await parts.agentTokens.revoke(tunnelId, id)
      if (done) await changed(tunnelId)
      return done
    },
    connectedAgents: async (tunnelId) => parts.grants.list(tunnelId),
    async revokeAgent(tunnelId, grantId) {
      const done = await parts.grants.revoke(tunnelId, grantId)
      if (done) parts.onGrantRevoked?.(grantId)
      if (done) await changed(tunnelId)
      return done
    },
    async revokeAll(tunnelId) {
      await parts.agentTokens.revokeAll(tunnelId)
      await parts.grants.revokeAll(tunnelId)
      await changed(tunnelId)
    },
  }
}
