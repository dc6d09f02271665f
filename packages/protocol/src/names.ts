/**
 * Naming rules shared by burrowd and burrow: account slugs, tunnel subdomains, upstream names and
 * the public hostname `<subdomain>--<slug>.<zone>` that must fit in one DNS label.
 */

/** Longest DNS label (RFC 1035). `<subdomain>--<slug>` must fit in one. */
export const DNS_LABEL_MAX = 63

/** Separator between subdomain and account slug in the public hostname. */
export const HOST_SEPARATOR = '--'

/** Upstream names in aggregator mode and in upstreams files (docs/configuration.md). */
export const UPSTREAM_NAME_PATTERN = /^[a-z][a-z0-9_-]{0,31}$/

const LABEL_PART = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/

/** Why a label was refused, or null when it is acceptable. */
export function labelProblem(kind: 'slug' | 'subdomain', value: string): string | null {
  if (value.length === 0) return `${kind} is empty`
  if (value.length > 40) return `${kind} "${value}" is longer than 40 characters`
  if (!LABEL_PART.test(value)) {
    return `${kind} "${value}" must use only a-z, 0-9 and "-", and start and end with a letter or digit`
  }
  if (value.includes(HOST_SEPARATOR)) {
    return `${kind} "${value}" must not contain "--" (it separates subdomain and account in URLs)`
  }
  return null
}

/** Why a subdomain/slug pair cannot form a public hostname, or null when it can. */
export function hostLabelProblem(subdomain: string, slug: string): string | null {
  const label = `${subdomain}${HOST_SEPARATOR}${slug}`
  if (label.length > DNS_LABEL_MAX) {
    return `"${label}" is ${label.length} characters; subdomain and slug together must fit one DNS label (${DNS_LABEL_MAX - HOST_SEPARATOR.length} characters in all)`
  }
  return null
}

/** The first DNS label of a tunnel's public hostname. */
export function tunnelHostLabel(subdomain: string, slug: string): string {
  return `${subdomain}${HOST_SEPARATOR}${slug}`
}

/** Split a public hostname's first label into subdomain and slug, or null when it is not one. */
export function parseTunnelHostLabel(label: string): { subdomain: string; slug: string } | null {
  const at = label.indexOf(HOST_SEPARATOR)
  if (at <= 0) return null
  const subdomain = label.slice(0, at)
  const slug = label.slice(at + HOST_SEPARATOR.length)
  if (labelProblem('subdomain', subdomain) || labelProblem('slug', slug)) return null
  return { subdomain, slug }
}
