/**
 * Turns what the detectors found into the list `detect` prints and `up` chooses from: the same
 * server configured in several clients (same transport: command, args and env, or URL) is listed
 * once with every client and file, and each entry gets a unique sanitised name.
 */
import type { ClientId, DetectedServer, DetectedTransport, FoundServer } from './detected-server.js'
import { uniqueSanitizedNames } from './sanitize-name.js'

/** Merge entries with the same transport (the first one found keeps its name) and name them. */
export function mergeDuplicates(found: readonly FoundServer[]): DetectedServer[] {
  const groups = new Map<
    string,
    { first: FoundServer; clients: Set<ClientId>; sources: Set<string>; notes: Set<string> }
  >()
  for (const entry of found) {
    const key = transportKey(entry.transport)
    const group = groups.get(key)
    if (group === undefined) {
      groups.set(key, {
        first: entry,
        clients: new Set([entry.client]),
        sources: new Set([entry.source]),
        notes: new Set(entry.notes),
      })
    } else {
      group.clients.add(entry.client)
      group.sources.add(entry.source)
      for (const note of entry.notes) group.notes.add(note)
    }
  }
  const merged = [...groups.values()]
  const names = uniqueSanitizedNames(merged.map((g) => g.first.name))
  return merged.map((g, i) => ({
    ...g.first,
    notes: [...g.notes],
    sanitizedName: names[i]!,
    clients: [...g.clients],
    sources: [...g.sources],
  }))
}

/** Identity of a transport; env order does not matter. */
function transportKey(t: DetectedTransport): string {
  if (t.type === 'http') return JSON.stringify(['http', t.url])
  const env = Object.entries(t.env).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return JSON.stringify(['stdio', t.command, t.args, env])
}
