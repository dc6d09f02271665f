/**
 * The public URL of a tunnel: `<scheme>://<subdomain>--<slug>.<zone>[:port]`. Agents append
 * `/mcp`. Printed by `burrowd tunnel create`, returned by the API and used by the edge.
 */

import { tunnelHostLabel } from '@burrow/protocol'
import { ConfigError } from './config-error.js'
import type { ServerConfig } from './config.js'

/** The parts of the configuration a public URL depends on. */
export type PublicUrlConfig = Pick<ServerConfig, 'zone' | 'publicScheme' | 'publicPort'>

const DEFAULT_PORTS = { http: 80, https: 443 } as const

/**
 * The port to show in public URLs, or null when the scheme's default applies. When the public
 * port follows a listen port of 0, the bound port must be passed as `actualListenPort`;
 * without it a `ConfigError` explains that the URL is not known yet.
 */
export function publicPortFor(config: PublicUrlConfig, actualListenPort?: number): number | null {
  let port = config.publicPort
  if (port === 0) {
    if (actualListenPort === undefined || actualListenPort === 0) {
      throw new ConfigError(
        'BURROW_PUBLIC_PORT',
        'public URLs are unknown until burrowd binds its port (BURROW_LISTEN uses port 0); set BURROW_PUBLIC_PORT or a fixed BURROW_LISTEN port',
      )
    }
    port = actualListenPort
  }
  return port === null || port === DEFAULT_PORTS[config.publicScheme] ? null : port
}

/**
 * The public URL of tunnel `subdomain` in account `slug`, without a trailing slash or `/mcp`,
 * e.g. `http://docs--acme.localhost:7100` or `https://docs--acme.tunnels.example.com`.
 */
export function publicUrlFor(
  config: PublicUrlConfig,
  subdomain: string,
  slug: string,
  actualListenPort?: number,
): string {
  const port = publicPortFor(config, actualListenPort)
  const host = `${tunnelHostLabel(subdomain, slug)}.${config.zone}`
  return `${config.publicScheme}://${host}${port === null ? '' : `:${port}`}`
}

/**
 * The service host's URL (the dashboard, the API and the broker), without a trailing slash, e.g.
 * `http://localhost:7100` or `https://tunnels.example.com` (`BURROW_SERVICE_HOST`, else the zone).
 */
export function serviceUrlFor(
  config: PublicUrlConfig & { readonly serviceHost?: string },
  actualListenPort?: number,
): string {
  const port = publicPortFor(config, actualListenPort)
  const host = config.serviceHost ?? config.zone
  return `${config.publicScheme}://${host}${port === null ? '' : `:${port}`}`
}

/** Where `burrow up` connects, as `--broker` takes it: the service URL as ws(s). */
export function brokerUrlFor(
  config: PublicUrlConfig & { readonly serviceHost?: string },
  actualListenPort?: number,
): string {
  return serviceUrlFor(config, actualListenPort).replace(/^http/, 'ws')
}
