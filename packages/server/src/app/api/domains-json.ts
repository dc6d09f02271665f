/** How the JSON API writes custom domains (docs/api.md#custom-domains). */
import { clientSnippet } from '@burrow/protocol'
import type { DomainView } from '../domains-port.js'

function iso(at: Date | null): string | null {
  return at === null ? null : at.toISOString()
}

/** One custom domain, with the records to create. */
export function domainJson(d: DomainView) {
  return {
    domain: d.domain,
    unicode: d.unicode,
    state: d.state,
    serving: d.serving,
    url: d.url,
    mcp_url: `${d.url}/mcp`,
    records: d.records.map((r) => ({ type: r.type, name: r.name, value: r.value })),
    created_at: iso(d.createdAt),
    checked_at: iso(d.checkedAt),
    verified_at: iso(d.verifiedAt),
    problem: d.problem,
  }
}

/**
 * A tunnel's JSON with its custom URL: `custom_url` (with `/mcp`, or null) and the snippet
 * pointing at the custom domain when one serves, with the headers its agents send (`headers`,
 * as the tunnel's own snippet has them).
 */
export function withCustomUrl<T extends { name: string | null }>(
  tunnel: T,
  customUrl: string | undefined,
  headers?: Record<string, string>,
): T & { custom_url: string | null } {
  if (customUrl === undefined) return { ...tunnel, custom_url: null }
  return {
    ...tunnel,
    custom_url: `${customUrl}/mcp`,
    snippet: clientSnippet(customUrl, tunnel.name, headers),
  }
}
