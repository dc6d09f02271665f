/**
 * Whose turn at burrowd's name lookups (lookup-turns.ts) a Client ID Metadata Document's host
 * takes: its registrable domain's. Strangers' client ids all took one turn, so one stranger whose
 * domain's nameservers never answer kept that turn slow and everyone's documents were looked up
 * one at a time behind the dead names, running out their wait for a place. Keyed by domain
 * instead, a dead domain slows only its own lookups.
 *
 * The domain is the registrable domain by the public suffix list (`tldts`), its private section
 * included: `docs.example.co.uk` → `example.co.uk`, `alice.github.io` → `alice.github.io`. The
 * name's last two labels made every name under a two-label suffix (`co.uk`, a provider's free
 * subdomains) one asker, so one dead name there slowed them all. Keying by the whole host was not
 * chosen: a zone whose nameservers never answer has every name under it dead, and each fresh name
 * would get a first turn before it was known as slow. Where there is no registrable domain
 * (docs/decisions.md, "Lookup turns"):
 *
 * - an IP literal is its own asker (it is never looked up: url-guard.ts checks it instead);
 * - a name under a suffix the list does not know (`printer.internal`, `dev.localhost`) takes the
 *   list's default rule, `*`: its last two labels;
 * - a name that is a public suffix itself, or a single label (`localhost`, `co.uk`), is its own;
 * - a name longer than any DNS name (253 characters) shares one asker with all such names.
 *
 * Names are read lower-case, without final dots, in their ASCII (punycode) spelling, so that
 * `bücher.example` and `xn--bcher-kva.example` are one. Labels DNS may still carry but hostnames
 * may not (`_`, a hyphen at an end, an empty label) are read as labels, so they buy no fresh turn
 * under a dead domain. How many are remembered is bounded by the turns (at most 10,000 slow
 * askers, oldest forgotten first).
 */
import { isIP } from 'node:net'
import { domainToASCII } from 'node:url'
import { parse } from 'tldts'

/** Set apart from accounts' askers (their ids), which take the same turns. */
const PREFIX = 'client document: '

/** The longest DNS name, in characters of its dotted form without the final dot. */
const MAX_NAME_CHARS = 253

/** The asker of names longer than any DNS name (no name is a parenthesis). */
const TOO_LONG = '(longer than a DNS name)'

/** The public suffix list's ICANN and private sections; hostnames as they are (no URL parsing). */
const SUFFIX_OPTIONS = {
  allowPrivateDomains: true,
  extractHostname: false,
  validateHostname: false,
  detectIp: false,
} as const

/** The asker of a lookup of `hostname` for a client document: its registrable domain. */
export function clientDocumentAsker(hostname: string): string {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname
  if (isIP(bare) !== 0) return PREFIX + bare.toLowerCase()
  if (hostname.length > MAX_NAME_CHARS + 1) return PREFIX + TOO_LONG
  const name = asciiName(hostname)
  if (name.length > MAX_NAME_CHARS) return PREFIX + TOO_LONG
  return PREFIX + (parse(name, SUFFIX_OPTIONS).domain ?? name)
}

/** `hostname` lower-case, in ASCII (punycode) where it has a spelling so, without final dots. */
function asciiName(hostname: string): string {
  const lower = hostname.toLowerCase()
  const ascii = domainToASCII(lower)
  return (ascii === '' ? lower : ascii).replace(/\.+$/, '')
}
