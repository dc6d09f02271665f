/**
 * Builds the custom-domain feature for `wire-services.ts`: the store over the database, the DNS
 * verifier (`BURROW_DNS_SERVERS`), the service with its periodic re-check, the web port, and the
 * one entry point `serve.ts` calls for requests that are neither tunnel hosts nor admin ones.
 */
import type { RateLimits } from '../http/rate-limits.js'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Logger } from '@burrow/protocol'
import type { DomainsPort } from '../app/domains-port.js'
import type { ClusterEvents } from '../cluster/cluster-events.js'
import type { ServerConfig } from '../config.js'
import type { Edge } from '../edge/edge.js'
import type { TunnelLookup } from '../edge/tunnel-lookup.js'
import { publicPortFor } from '../public-url.js'
import { CustomDomainStore } from '../store/custom-domain-store.js'
import type { Store } from '../store/store.js'
import { routeCustomDomain } from './custom-domain-routing.js'
import { CustomDomains } from './custom-domains.js'
import { DnsVerifier } from './dns-verifier.js'
import { domainsWebPort } from './domains-web-port.js'
import { answerTlsAsk, isTlsAsk } from './tls-ask-route.js'

/** How often the periodic re-check looks for domains due. */
const RECHECK_TICK_MS = 60_000

/** The running feature. */
export interface CustomDomainsRuntime {
  readonly domains: CustomDomains
  readonly web: DomainsPort
  /**
   * Answer `req` when it is Caddy's TLS question or for a custom domain; resolves false when it
   * is neither (the app's then).
   */
  handle(req: IncomingMessage, res: ServerResponse, host: string): Promise<boolean>
  /**
   * The tunnel label of the resource URL `resource` when it is a verified custom domain's
   * `<origin>/mcp`, or null (the OAuth authorization server binds tokens to such resources).
   */
  labelOfResource(resource: string): Promise<string | null>
  /** Stop the re-check. */
  stop(): Promise<void>
}

/** What `openCustomDomains` builds on. */
export interface CustomDomainsParts {
  readonly config: ServerConfig
  readonly store: Store
  readonly lookup: TunnelLookup
  readonly edge: Edge
  readonly port: number
  readonly log: Logger
  /** Changes every node applies: domain changes are announced, and others' forgotten here. */
  readonly events?: ClusterEvents
  /** Called for each request a custom domain routes to the edge (for burrowd's metrics). */
  readonly onEdgeRequest?: (res: ServerResponse) => void
  /** Where the limits on additions and checks are kept (default: this process's own). */
  readonly limits?: RateLimits
}

/** Build and start the feature. */
export function openCustomDomains(parts: CustomDomainsParts): CustomDomainsRuntime {
  const { config, store, lookup, edge, log } = parts
  const domainStore = new CustomDomainStore(store.db)
  const domains = new CustomDomains({
    store: domainStore,
    verifier: new DnsVerifier({ servers: config.dnsServers }),
    zone: config.zone,
    serviceHost: config.serviceHost,
    planOf: async (label) => (await lookup.byLabel(label))?.plan ?? null,
    log,
    ...(parts.events ? { onChange: () => parts.events?.publish({ type: 'domains' }) } : {}),
    ...(parts.limits ? { limits: parts.limits } : {}),
  })
  parts.events?.subscribe((event) => {
    if (event.type === 'domains' || event.type === 'account') domains.invalidate()
    // Open streams on a domain removed (or no longer verified) end now, on every node.
    if (event.type === 'domains') void edge.recheckAccess()
  })
  const port = publicPortFor(config, parts.port)
  const originOf = (domain: string) =>
    `${config.publicScheme}://${domain}${port === null ? '' : `:${port}`}`
  const web = domainsWebPort({
    domains,
    store: domainStore,
    planOf: async (accountId) => (await store.getAccountById(accountId))?.plan ?? null,
    urlOf: (domain) => originOf(domain),
    ...(parts.limits ? { limits: parts.limits } : {}),
  })
  domains.start(RECHECK_TICK_MS)
  return {
    domains,
    web,
    async handle(req, res, host) {
      if (isTlsAsk(req)) {
        await answerTlsAsk(domains, req, res)
        return true
      }
      return routeCustomDomain(
        {
          domains,
          edge,
          originOf,
          ...(parts.onEdgeRequest ? { onEdgeRequest: parts.onEdgeRequest } : {}),
        },
        req,
        res,
        host,
      )
    },
    async labelOfResource(resource) {
      let url: URL
      try {
        url = new URL(resource)
      } catch {
        return null
      }
      const name = url.hostname.toLowerCase()
      if (!domains.candidate(name)) return null
      const route = await domains.route(name)
      if (route === null || route === 'pending') return null
      return `${originOf(name)}/mcp` === resource ? route.label : null
    },
    stop: () => domains.stop(),
  }
}
