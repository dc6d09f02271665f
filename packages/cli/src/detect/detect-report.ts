/**
 * The human-readable list `burrow detect` prints: servers grouped by the client that declares
 * them, each with its transport, the upstream name `up` would use and the file it came from.
 * Environment values are not printed (they are often tokens); `--json` has them. What comes from
 * a file is printed through `printable`: a repository's file cannot send escape sequences.
 */
import { scannedClientsText } from './all-detectors.js'
import { CLIENT_LABELS, type ClientId, type DetectedServer } from './detected-server.js'
import { formatCommandLine } from './format-command-line.js'
import { printable } from '../printable.js'

/** One line describing how a server is reached: `stdio: <command line>` or `http: <url>`. */
export function transportSummary(entry: DetectedServer): string {
  const t = entry.transport
  return t.type === 'http'
    ? `http: ${printable(t.url)}`
    : `stdio: ${printable(formatCommandLine([t.command, ...t.args]))}`
}

/** The list for `entries`; `explicit` says they came from `--config` files rather than a scan. */
export function formatDetectReport(entries: readonly DetectedServer[], explicit: boolean): string {
  if (entries.length === 0) {
    const where = explicit
      ? 'the given --config files'
      : `the configuration of ${scannedClientsText()}`
    return `No MCP servers found in ${where}.\n`
  }
  const count = `${entries.length} MCP server${entries.length === 1 ? '' : 's'}`
  const blocks = groupByClient(entries).map(([client, group]) =>
    [CLIENT_LABELS[client], ...group.flatMap(entryLines)].join('\n'),
  )
  const up = explicit ? '"burrow up" with the same --config flags' : '"burrow up"'
  const next =
    entries.length === 1
      ? `Run ${up} to expose it.`
      : `Run ${up} to expose them (it asks which), or pick one with\n` +
        '--stdio "<command>" or --upstream <url>.'
  return `Found ${count} (nothing is exposed):\n\n${blocks.join('\n\n')}\n\n${next}\n`
}

function groupByClient(entries: readonly DetectedServer[]): [ClientId, DetectedServer[]][] {
  const groups = new Map<ClientId, DetectedServer[]>()
  for (const entry of entries) {
    const group = groups.get(entry.client)
    if (group === undefined) groups.set(entry.client, [entry])
    else group.push(entry)
  }
  return [...groups]
}

function entryLines(entry: DetectedServer): string[] {
  const t = entry.transport
  const renamed =
    entry.sanitizedName === entry.name ? '' : ` (upstream name "${entry.sanitizedName}")`
  const lines = [`  ${printable(entry.name)}${renamed}`, `    ${transportSummary(entry)}`]
  const envNames = t.type === 'stdio' ? Object.keys(t.env).map(printable) : []
  if (envNames.length > 0) lines.push(`    env: ${envNames.join(', ')} (values not shown)`)
  for (const source of entry.sources) lines.push(`    from ${printable(source)}`)
  const others = entry.clients.filter((c) => c !== entry.client)
  if (others.length > 0) lines.push(`    also in ${others.map((c) => CLIENT_LABELS[c]).join(', ')}`)
  for (const note of entry.notes) lines.push(`    note: ${printable(note)}`)
  return lines
}
