/**
 * Deriving a tunnel subdomain from its friendly name ("Docs Server" → `docs-server`), so that
 * URLs are readable when the operator or CLI gives a name but no subdomain.
 */

import { DNS_LABEL_MAX, HOST_SEPARATOR, hostLabelProblem, labelProblem } from '@burrow/protocol'

/** Longest subdomain `labelProblem` accepts. */
const SUBDOMAIN_MAX = 40

/**
 * `name` turned into a valid subdomain for account `slug`: accents dropped, lower-cased, runs of
 * other characters become one "-", cut to fit. Null when nothing usable remains.
 */
export function subdomainFromName(name: string, slug: string): string | null {
  const max = Math.min(SUBDOMAIN_MAX, DNS_LABEL_MAX - HOST_SEPARATOR.length - slug.length)
  const label = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+/, '')
    .slice(0, Math.max(0, max))
    .replace(/-+$/, '')
  if (labelProblem('subdomain', label) !== null) return null
  return hostLabelProblem(label, slug) === null ? label : null
}
