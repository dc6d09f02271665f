/**
 * Whose turn at burrowd's name lookups (lookup-turns.ts) a Client ID Metadata Document's host
 * takes: its domain's. Strangers' client ids all took one turn, so one stranger whose domain's
 * nameservers never answer kept that turn slow and everyone's documents were looked up one at a
 * time behind the dead names, running out their wait for a place. Keyed by domain instead, a
 * dead domain slows only its own lookups.
 *
 * The domain is the name's last two labels (`docs.app.example.com` → `example.com`), not its
 * registrable domain: burrowd carries no public suffix list. Keying by the whole host was not
 * chosen: a zone whose nameservers never answer has every name under it dead, and each fresh
 * name would get a first turn before it was known as slow. Names under a two-label public suffix
 * (`co.uk`) share one turn, as all names did before. How many are remembered is bounded by the
 * turns (at most 10,000 slow askers, oldest forgotten first).
 */

/** Set apart from accounts' askers (their ids), which take the same turns. */
const PREFIX = 'client document: '

/** The asker of a lookup of `hostname` for a client document: its last two labels. */
export function clientDocumentAsker(hostname: string): string {
  const labels = hostname.toLowerCase().replace(/\.+$/, '').split('.')
  return PREFIX + labels.slice(-2).join('.')
}
