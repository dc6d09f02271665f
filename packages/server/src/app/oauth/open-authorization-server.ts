/**
 * Builds the OAuth authorization server that the service host mounts, over the access feature's
 * stores and tokens: a token's resource must name a tunnel host this service serves, or a
 * verified custom domain of a tunnel (`customDomainLabel`).
 */
import type { Access } from '../../access/open-access.js'
import type { TunnelLookup } from '../../edge/tunnel-lookup.js'
import type { ClientAddresses } from '../../http/client-addresses.js'
import type { WebServices } from '../web-services.js'
import { AuthorizationServer } from './authorization-server.js'
import type { RateLimits } from '../../http/rate-limits.js'

/** The authorization server over `access`, for the service host's mounts. */
export function authorizationServer(
  access: Access,
  services: WebServices,
  lookup: TunnelLookup,
  https: boolean,
  addresses: ClientAddresses,
  customDomainLabel: (resource: string) => Promise<string | null> = () => Promise.resolve(null),
  limits?: RateLimits,
): AuthorizationServer {
  return new AuthorizationServer({
    ...(limits ? { limits } : {}),
    issuer: access.issuer,
    https,
    services,
    registry: access.registry,
    grants: access.grants,
    tokens: access.tokens,
    settings: access.settings,
    addresses,
    onGrantRevoked: (tunnelId) => access.grantRevoked(tunnelId),
    tunnelByLabel: (label) => lookup.byLabel(label),
    labelOf: async (resource) => {
      let url: URL
      try {
        url = new URL(resource)
      } catch {
        return null
      }
      const label = lookup.tunnelLabel(url.hostname.toLowerCase())
      if (label === null) return customDomainLabel(resource)
      return access.gate.resource(access.gate.originOf(label)) === resource ? label : null
    },
  })
}
