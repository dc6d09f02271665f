/**
 * Which hosts the service's own pages answer on. The dashboard, the JSON API, the OAuth
 * authorization server and the payment pages are served at the service host
 * (`BURROW_SERVICE_HOST`, the zone when unset) and at hosts that name no one's domain: an IP
 * address, `localhost`, or no Host at all (HTTP/1.0), which is how tests, local development,
 * health checks and the front proxy on the same machine reach burrowd directly. Any other host
 * that is neither a tunnel's nor a custom domain's (`evil.<zone>`, `a.b--c.<zone>`, a custom
 * domain removed while the front proxy still holds its certificate, any name pointed at the
 * service) gets `404 tunnel_not_found`, never the dashboard: before, every such name served the
 * sign-in page on an origin of its own (docs/decisions.md, "The service's own hosts").
 *
 * What `burrow up` reaches at the origin of its `--broker` (the update check, crash reports), what
 * probes and scrapers ask (`/healthz`, `/metrics`, which has its own guard) and the payment
 * provider's signed webhooks answer on any such host, as the broker's upgrade does: none of them
 * is a page, sets a cookie or reads one, and a client or a webhook destination set up with
 * another name of the service must not lose them.
 */
import { isIP } from 'node:net'

/** Paths the app answers on any host that is not a tunnel's or a custom domain's. */
const ANY_HOST_PATHS: ReadonlySet<string> = new Set([
  '/healthz',
  '/metrics',
  '/api/client/latest',
  '/api/crash-reports',
  // billing/paddle-webhook-route.ts's PADDLE_WEBHOOK_PATH (a feature this module sits below).
  '/webhooks/paddle',
])

/**
 * Whether `host` (lower-case, port and trailing dot stripped, as `serve.ts` reads it) is one the
 * service's pages answer on, `serviceHost` being the configured service host.
 */
export function isServiceHost(serviceHost: string, host: string): boolean {
  if (host === serviceHost || host === '' || host === 'localhost') return true
  if (host.startsWith('[') && host.endsWith(']')) return isIP(host.slice(1, -1)) === 6
  return isIP(host) === 4
}

/** Whether the app answers `path` (no query) at `host`. */
export function appServes(serviceHost: string, host: string, path: string): boolean {
  return isServiceHost(serviceHost, host) || ANY_HOST_PATHS.has(path)
}
