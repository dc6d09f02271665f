/**
 * What a custom domain may be: a DNS name of at least two labels, in its ASCII (punycode) form,
 * not a wildcard, not an IP address, not the service's own zone or anything under it, and not an
 * internationalised name built to look like another (letters of several scripts in one label, or
 * a label made only of letters that mimic Latin ones). The reason for a refusal says which rule.
 */
import { isIP } from 'node:net'
import { domainToASCII, domainToUnicode } from 'node:url'

/** The domain in canonical form, or why it cannot be one. */
export type DomainCheck =
  | { readonly ok: true; readonly domain: string; readonly unicode: string }
  | { readonly ok: false; readonly reason: string }

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/

/**
 * The longest custom domain: its TXT record `_burrow-challenge.<domain>` must be a DNS name (253
 * characters at most); for a longer one the resolver refuses the lookup, and the domain never
 * verifies.
 */
export const MAX_CUSTOM_DOMAIN_CHARS = 253 - '_burrow-challenge.'.length

/** Scripts whose letters can pass for Latin ones. */
const SCRIPTS: readonly [string, RegExp][] = [
  ['Latin', /\p{Script=Latin}/u],
  ['Cyrillic', /\p{Script=Cyrillic}/u],
  ['Greek', /\p{Script=Greek}/u],
  ['Armenian', /\p{Script=Armenian}/u],
  ['Cherokee', /\p{Script=Cherokee}/u],
]

/** Cyrillic and Greek letters that look like Latin ones (a label of only these is a decoy). */
const LOOKALIKES = new Set([...'аеорсухіјѕԁԛԝһкмнтвьӏαοτνκιρυχεβηхАВЕКМНОРСТХ'])

/**
 * Check `input` (as a user typed it) as a custom domain for a service whose zone is `zone` and
 * whose own host is `serviceHost` (the zone unless the operator gave it a host of its own).
 */
export function checkCustomDomain(
  input: string,
  zone: string,
  serviceHost: string = zone,
): DomainCheck {
  const trimmed = input.trim().replace(/\.$/, '')
  if (trimmed === '') return refuse('enter a domain name, e.g. mcp.example.com')
  if (trimmed.includes('*')) return refuse('wildcard domains are not supported; add each name')
  if (/[/:@?#\s]/.test(trimmed)) {
    return refuse('enter the domain name only, without a scheme, port, path or spaces')
  }
  if (isIP(trimmed.replace(/^\[|\]$/g, '')) !== 0) {
    return refuse('an IP address cannot be a custom domain; use a DNS name')
  }
  const domain = domainToASCII(trimmed.toLowerCase())
  if (domain === '' || domain.length > 253) return refuse(`"${trimmed}" is not a valid domain name`)
  const labels = domain.split('.')
  if (labels.length < 2)
    return refuse('a custom domain needs at least two labels, e.g. mcp.example.com')
  for (const label of labels) {
    if (!LABEL.test(label)) return refuse(`"${label}" is not a valid DNS label in ${domain}`)
  }
  if (/^\d+$/.test(labels[labels.length - 1]!))
    return refuse('the top-level domain cannot be numeric')
  if (domain.length > MAX_CUSTOM_DOMAIN_CHARS) {
    return refuse(
      `a custom domain can be at most ${MAX_CUSTOM_DOMAIN_CHARS} characters (${domain.length} here): ` +
        `its TXT record _burrow-challenge.<domain> must fit in a DNS name`,
    )
  }
  const z = zone.toLowerCase()
  if (domain === z || domain.endsWith(`.${z}`)) {
    return refuse(
      `${domain} is part of the service's own zone (${z}); tunnels there need no custom domain`,
    )
  }
  if (domain === serviceHost.toLowerCase()) {
    return refuse(`${domain} is this service's own host; it cannot serve a tunnel`)
  }
  const unicode = domainToUnicode(domain)
  for (const label of unicode.split('.')) {
    const problem = confusable(label)
    if (problem !== null) return refuse(`${unicode} (${domain}) ${problem}`)
  }
  return { ok: true, domain, unicode }
}

function refuse(reason: string): DomainCheck {
  return { ok: false, reason }
}

/** Why `label` is built to deceive, or null. */
function confusable(label: string): string | null {
  const scripts = new Set<string>()
  let letters = 0
  let lookalikes = 0
  for (const ch of label) {
    if (!/\p{L}/u.test(ch)) continue
    letters++
    if (LOOKALIKES.has(ch)) lookalikes++
    for (const [name, re] of SCRIPTS) if (re.test(ch)) scripts.add(name)
  }
  if (scripts.size > 1) {
    return `mixes ${[...scripts].join(' and ')} letters in one label, a common lookalike trick; it is refused`
  }
  if (letters > 0 && lookalikes === letters && !scripts.has('Latin')) {
    return 'is made of letters that imitate Latin ones, a common lookalike trick; it is refused'
  }
  return null
}
