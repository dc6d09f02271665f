/**
 * Public requests whose Host is a custom domain: a verified domain reaches its tunnel's edge
 * exactly as the tunnel's own hostname does (only `/mcp`; every policy, quota and session rule),
 * once its account's plan allows it at this moment; after a downgrade the domain answers
 * `402 plan_limit` while the tunnel's own URL keeps working. A domain only added (not verified)
 * answers `404 tunnel_not_found`; any other host is not ours (the app answers it).
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Edge } from '../edge/edge.js'
import { noteTunnelRequest } from '../edge/tunnel-requests.js'
import { sendRefusal } from '../http/send-refusal.js'
import { PLANS } from '../plans.js'
import type { CustomDomains } from './custom-domains.js'

/** What `routeCustomDomain` needs. */
export interface CustomDomainRouting {
  readonly domains: CustomDomains
  readonly edge: Edge
  /** `<scheme>://<domain>[:port]`, as agents reach a custom domain. */
  readonly originOf: (domain: string) => string
  /** Called for each request answered as a tunnel's (burrowd's edge metrics count it). */
  readonly onEdgeRequest?: (res: ServerResponse) => void
}

/**
 * Answer `req` when `host` (lower-case, port stripped) is a custom domain someone added; resolves
 * false when it is not one, so that the app answers.
 */
export async function routeCustomDomain(
  parts: CustomDomainRouting,
  req: IncomingMessage,
  res: ServerResponse,
  host: string,
): Promise<boolean> {
  const { domains, edge } = parts
  // A fully qualified Host (`mcp.example.com.`) names the same domain.
  const name = host.endsWith('.') ? host.slice(0, -1) : host
  if (!domains.candidate(name)) return false
  let route: Awaited<ReturnType<CustomDomains['route']>>
  try {
    route = await domains.route(name)
  } catch (error) {
    // Whether `name` is a custom domain could not be read (the database stalled): a call to
    // `/mcp`, which the app does not serve, is answered as a tunnel's, with the envelope and its
    // ids; before, it got the app's plain-text 503.
    if ((req.url ?? '').split('?', 1)[0] === '/mcp') noteTunnelRequest(req)
    throw error
  }
  if (route === null) return false
  parts.onEdgeRequest?.(res)
  // A failure from here on is the tunnel's: answered with the envelope, as on its own hostname.
  noteTunnelRequest(req)
  if (route === 'pending') {
    sendRefusal(
      res,
      'tunnel_not_found',
      'custom domain not verified',
      `${name} is not verified yet; its owner can check its DNS records in the dashboard`,
    )
    return true
  }
  await edge.handle(req, res, route.label, host, {
    origin: parts.originOf(name),
    gate: (tunnel) => {
      if (domains.allowed(route, tunnel.plan)) return null
      return {
        code: 'plan_limit',
        message: 'custom domain not included in the plan',
        reason:
          `the ${PLANS[tunnel.plan].name} plan does not serve ${name}; its owner can upgrade or ` +
          `remove the domain (the tunnel's own URL keeps working)`,
      }
    },
    stillRoutes: async (tunnel) => {
      const now = await domains.route(name)
      return (
        now !== null &&
        now !== 'pending' &&
        now.label === route.label &&
        domains.allowed(now, tunnel.plan)
      )
    },
  })
  return true
}
