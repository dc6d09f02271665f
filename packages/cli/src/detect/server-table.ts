/**
 * Reads one table of server entries (`mcpServers`, `servers`, `[mcp_servers]`) into found servers.
 * The clients' entry forms do not conflict, so one reader understands them all: `command`/`args`/
 * `env` (with or without `type: "stdio"`), `url` with or without `type: "http"`, Windsurf's
 * `serverUrl` and Gemini's legacy `httpUrl`. Disabled entries are skipped; legacy SSE entries and
 * malformed ones are skipped with a warning naming the file and the entry.
 */
import type { ClientId, DetectedTransport, FoundServer } from './detected-server.js'

/** Where a table comes from, and where its problems go. */
export interface TableSource {
  readonly client: ClientId
  /** The file, for `source` and messages. */
  readonly source: string
  readonly warn: (message: string) => void
}

const HTTP_TYPES = new Set(['http', 'streamable-http', 'streamableHttp', 'streamable_http'])
const SSE_TYPES = new Set(['sse'])

/** The enabled servers of `table` (an object keyed by server name); anything else yields none. */
export function serversFromTable(table: unknown, from: TableSource): FoundServer[] {
  if (!isRecord(table)) return []
  const found: FoundServer[] = []
  for (const [name, entry] of Object.entries(table)) {
    const problem = (what: string) => from.warn(`${from.source}: server "${name}" ${what}; skipped`)
    if (!isRecord(entry)) {
      problem('is not an object')
      continue
    }
    if (entry.disabled === true || entry.enabled === false) continue
    const transport = transportOf(entry, problem)
    if (transport === null) continue
    found.push({
      name,
      client: from.client,
      source: from.source,
      transport,
      notes: [...placeholderNotes(transport), ...entryNotes(entry)],
    })
  }
  return found
}

function transportOf(
  entry: Record<string, unknown>,
  problem: (what: string) => void,
): DetectedTransport | null {
  const type = entry.type
  const url = [entry.url, entry.serverUrl, entry.httpUrl].find((v) => typeof v === 'string')
  if (type !== undefined && typeof type !== 'string') {
    problem('has a "type" that is not a string')
    return null
  }
  if (type !== undefined && SSE_TYPES.has(type)) {
    problem('uses the legacy SSE transport, which burrow cannot forward')
    return null
  }
  if (type !== undefined && type !== 'stdio' && !HTTP_TYPES.has(type)) {
    problem(`has transport type "${type}", which burrow does not know`)
    return null
  }
  const stdio = type === 'stdio' || (type === undefined && entry.command !== undefined)
  if (!stdio) {
    if (typeof url === 'string' && url !== '') return { type: 'http', url }
    problem('has neither a "command" nor a "url"')
    return null
  }
  if (typeof entry.command !== 'string' || entry.command === '') {
    problem('has no "command" string')
    return null
  }
  const args = entry.args ?? []
  if (!Array.isArray(args) || !args.every((a) => typeof a === 'string')) {
    problem('has "args" that are not a list of strings')
    return null
  }
  const env = envOf(entry.env)
  if (env === null) {
    problem('has an "env" that is not a table of strings')
    return null
  }
  return { type: 'stdio', command: entry.command, args, env }
}

/** String values as they are; numbers and booleans as text (TOML and hand-written JSON use them). */
function envOf(value: unknown): Record<string, string> | null {
  if (value === undefined || value === null) return {}
  if (!isRecord(value)) return null
  const env: [string, string][] = []
  for (const [key, v] of Object.entries(value)) {
    if (typeof v === 'string') env.push([key, v])
    else if (typeof v === 'number' || typeof v === 'boolean') env.push([key, String(v)])
    else return null
  }
  // Built from entries: an assignment to a variable named `__proto__` would set the prototype.
  return Object.fromEntries(env)
}

/** A note listing `${…}` placeholders, which the client expands and burrow passes as written. */
function placeholderNotes(transport: DetectedTransport): string[] {
  const texts =
    transport.type === 'http'
      ? [transport.url]
      : [transport.command, ...transport.args, ...Object.values(transport.env)]
  // `${input:…}` is VS Code's own syntax; its detector explains those with the input's description.
  const found = new Set(
    texts.flatMap((t) => placeholdersIn(t, (inner) => !inner.startsWith('input:'))),
  )
  if (found.size === 0) return []
  return [`placeholders kept as written (the client expands them): ${[...found].join(', ')}`]
}

/** What the client does for this entry that burrow will not: send headers, use another folder. */
function entryNotes(entry: Record<string, unknown>): string[] {
  const notes: string[] = []
  const headers = [entry.headers, entry.http_headers, entry.env_http_headers]
    .filter(isRecord)
    .flatMap((h) => Object.keys(h))
  if (typeof entry.bearer_token_env_var === 'string') headers.push('Authorization')
  if (headers.length > 0)
    notes.push(
      `the client adds headers (${[...new Set(headers)].join(', ')}) that burrow does not add; the remote agent must send them`,
    )
  if (typeof entry.cwd === 'string' && entry.cwd !== '')
    notes.push(
      `the client starts it in ${entry.cwd}; burrow starts it in its own working directory`,
    )
  return notes
}

/**
 * The `${…}` placeholders of `text`, each up to the first `}`, whose inside `keep` accepts (those
 * it refuses are passed over, and the search goes on from the next character): what the global
 * regular expression `/\$\{[^}]*\}/g` with such a condition finds, in linear time. That regular
 * expression read to the end of the text from every `${` with no `}` after it: a repository's
 * file of `${${${…` took minutes.
 */
export function placeholdersIn(text: string, keep: (inner: string) => boolean): string[] {
  const found: string[] = []
  // The next `}`, which only moves forward: each character is read a bounded number of times.
  let close = -1
  let from = 0
  for (;;) {
    const open = text.indexOf('${', from)
    if (open === -1) return found
    if (close < open + 2) close = text.indexOf('}', open + 2)
    if (close === -1) return found
    const inner = text.slice(open + 2, close)
    if (keep(inner)) {
      found.push(`\${${inner}}`)
      from = close + 1
    } else from = open + 1
  }
}

/** A plain object (not an array or null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
