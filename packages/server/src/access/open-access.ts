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
import { randomBytes } from 'node:crypto'
import { silentLogger, type Logger } from '@burrow/protocol'
import { OauthClientStore } from '../store/oauth-client-store.js'
import { UrlGuard } from '../webhooks/url-guard.js'
import { clientDocumentAsker } from './oauth/client-document-asker.js'
import { AccessTokens } from './oauth/access-tokens.js'
import { ClientRegistry, FETCH_TIMEOUT_MS } from './oauth/client-registry.js'
import type { ClusterEvents } from '../cluster/cluster-events.js'

/** What `openAccess` builds. */
export interface Access {
  readonly gate: AccessGate
  readonly port: AccessPort
  readonly settings: TunnelAccessStore
  readonly agentTokens: AgentTokenStore
  readonly grants: OauthGrantStore
  readonly tokens: AccessTokens
  readonly registry: ClientRegistry
  readonly issuer: string
  /** Tell every node that a grant of `tunnelId` was revoked (an `access` event). */
  grantRevoked(tunnelId: string): Promise<void>
  /** Stop the client-metadata fetcher. */
  close(): Promise<void>
}

/**
 * Build access control over `store` for a service bound to `listenPort`, telling `events` when a
 * tunnel's access changes. Client metadata
 * documents are fetched through the webhooks' SSRF guard, with its switch for private addresses;
 * why a fetch failed goes to `log`.
 */
export async function openAccess(
  config: ServerConfig,
  store: Store,
  listenPort: number,
  log: Logger = silentLogger,
  events?: ClusterEvents,
): Promise<Access> {
  const settings = new TunnelAccessStore(store.db)
  const agentTokens = new AgentTokenStore(store.db)
  const grants = new OauthGrantStore(store.db)
  const port = publicPortFor(config, listenPort)
  const issuer = serviceUrlFor(config, listenPort)
  const secret = await store.setSettingIfAbsent(
    'oauth_signing_secret',
    randomBytes(32).toString('base64url'),
  )
  const tokens = new AccessTokens({ secret, issuer, grants })
  // A client document's lookup takes its domain's turn: a stranger's dead domain slows only its own.
  // Its connections' timeout is the fetch's: undici applies the fetch's abort only once
  // connected, so the lookup and the connection took up to the webhooks' 10 s (a hostile review).
  const guard = new UrlGuard({
    allowPrivate: config.webhooksAllowPrivate,
    askerOf: clientDocumentAsker,
    connectTimeoutMs: FETCH_TIMEOUT_MS,
  })
  const registry = new ClientRegistry(new OauthClientStore(store.db), guard, undefined, log)
  const gate = new AccessGate({
    settings,
    agentTokens,
    oauth: tokens,
    issuer,
    publicOrigin: (label) =>
      `${config.publicScheme}://${label}.${config.zone}${port === null ? '' : `:${port}`}`,
  })
  return {
    gate,
    settings,
    agentTokens,
    grants,
    tokens,
    registry,
    issuer,
    grantRevoked: async (tunnelId) => {
      await events?.publish({ type: 'access', tunnelId })
    },
    port: storeAccessPort({ settings, agentTokens, grants, gate, ...(events ? { events } : {}) }),
    close: () => guard.close(),
  }
}
