/**
 * Builds who-may-call-a-tunnel for `burrowd serve`: the stores, the edge's gate and the port the
 * dashboard and API manage access through.
 */
import type { AccessPort } from '../app/access-port.js'
import type { ServerConfig } from '../config.js'
import { publicPortFor, serviceUrlFor } from '../public-url.js'
import { AgentTokenStore } from '../store/agent-token-store.js'
import { OauthGrantStore } from '../store/oauth-grant-store.js'
import type { Store } from '../store/store.js'
import { TunnelAccessStore } from '../store/tunnel-access-store.js'
import { AccessGate } from './access-gate.js'
import { storeAccessPort } from './store-access-port.js'

/** What `openAccess` builds. */
export interface Access {
  readonly gate: AccessGate
  readonly port: AccessPort
  readonly settings: TunnelAccessStore
  readonly agentTokens: AgentTokenStore
  readonly grants: OauthGrantStore
}

/** Build access control over `store` for a service bound to `listenPort`. */
export function openAccess(config: ServerConfig, store: Store, listenPort: number): Access {
  const settings = new TunnelAccessStore(store.db)
  const agentTokens = new AgentTokenStore(store.db)
  const grants = new OauthGrantStore(store.db)
  const port = publicPortFor(config, listenPort)
  const gate = new AccessGate({
    settings,
    agentTokens,
    issuer: serviceUrlFor(config, listenPort),
    publicOrigin: (label) =>
      `${config.publicScheme}://${label}.${config.zone}${port === null ? '' : `:${port}`}`,
  })
  return {
    gate,
    settings,
    agentTokens,
    grants,
    port: storeAccessPort({ settings, agentTokens, grants, gate }),
  }
}
