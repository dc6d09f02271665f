/**
 * Which detected servers `burrow up` exposes when no upstream flag is given (docs/detect.md): none
 * is a usage error; one is exposed directly; several are offered in a numbered menu on a terminal
 * (one server, or several aggregated); without a terminal all are aggregated, with a warning.
 * A server that only a project's file in the working directory declares (`isProjectFile`) runs
 * the repository's command, not the user's: alone, it is exposed only after a yes on a
 * terminal; in the menu it is marked; without a terminal it is left out, with a warning.
 */
import { UsageError } from '../cli-errors.js'
import { scannedClientsText } from './all-detectors.js'
import { CLIENT_LABELS, type DetectedServer } from './detected-server.js'
import { transportSummary } from './detect-report.js'
import { printable } from '../printable.js'

/** Servers a refusal names before it counts the rest. */
const NAMES_SHOWN = 10

/** How `chooseUpstreams` talks to the user. */
export interface ChooseIo {
  /** Whether stdin and stdout are a terminal, so questions can be asked. */
  readonly isTTY: boolean
  /** Ask one question (the text ends with a space, no newline) and resolve to the answer. */
  ask(question: string): Promise<string>
  warn(message: string): void
  out(text: string): void
}

/** After this many unusable answers in a row the question is given up (e.g. stdin was closed). */
const MAX_ATTEMPTS = 10

/**
 * The servers to expose, chosen from `entries` (in their order). Throws UsageError when there are
 * none, or when no usable answer comes after repeated questions.
 */
export async function chooseUpstreams(
  entries: readonly DetectedServer[],
  io: ChooseIo,
  fromProject: (entry: DetectedServer) => boolean = () => false,
): Promise<DetectedServer[]> {
  if (entries.length === 0) {
    throw new UsageError(
      `no MCP servers found in the configuration of ${scannedClientsText()}; ` +
        `pass --upstream http://127.0.0.1:3000/mcp or --stdio "npx my-server", ` +
        `or --config <file> to read a config file elsewhere`,
    )
  }
  if (!io.isTTY) return withoutTerminal(entries, io, fromProject)
  if (entries.length === 1) {
    const only = entries[0]!
    if (fromProject(only) && !(await confirmProjectServer(only, io))) {
      throw new UsageError(
        `nothing to expose: ${only.sanitizedName} was not approved; ` +
          'pass --upstream or --stdio to name a server',
      )
    }
    return [only]
  }
  io.out(menu(entries, fromProject))
  const mode = await askUntil(io, 'Expose one server (1) or aggregate several (2)? [1/2] ', (a) =>
    a === '1' || a === 'one' ? 'one' : a === '2' || a === 'aggregate' ? 'aggregate' : null,
  )
  if (mode === 'one') {
    const pick = await askUntil(io, `Which server? [1-${entries.length}] `, (a) =>
      pickNumbers(a, entries.length)?.length === 1 ? pickNumbers(a, entries.length) : null,
    )
    return pick.map((n) => entries[n - 1]!)
  }
  const picks = await askUntil(
    io,
    `Which servers? (numbers separated by commas, ranges like 1-3, or "all") `,
    (a) => (a === 'all' ? entries.map((_, i) => i + 1) : pickNumbers(a, entries.length)),
  )
  return picks.map((n) => entries[n - 1]!)
}

/** Without a terminal: every server but the project's, aggregated when there are several. */
function withoutTerminal(
  entries: readonly DetectedServer[],
  io: ChooseIo,
  fromProject: (entry: DetectedServer) => boolean,
): DetectedServer[] {
  const usable = entries.filter((e) => !fromProject(e))
  const project = entries.filter(fromProject)
  if (project.length > 0) {
    // Each server by name (the first few) and each file once: one file often declares several.
    const files = projectFiles(project)
    const what =
      `${project.length === 1 ? 'the server' : `the ${project.length} servers`} ` +
      `(${someNames(project)}) that only this directory's project ` +
      `${files.length === 1 ? `file ${files[0]} declares` : `files ${files.join(', ')} declare`}`
    const why =
      "a project's file holds the repository's commands, and there is no terminal to ask; " +
      'pass --config <file> to use a file you trust, or --upstream/--stdio'
    if (usable.length === 0) {
      throw new UsageError(`found no MCP server of your own, just ${what}: ${why}`)
    }
    io.warn(`not exposing ${what}: ${why}`)
  }
  if (usable.length > 1) {
    io.warn(
      `found ${usable.length} MCP servers and no terminal to ask which to expose: aggregating all ` +
        `of them (${usable.map((e) => e.sanitizedName).join(', ')}); pass --upstream/--stdio to choose`,
    )
  }
  return usable
}

/** The files `project`'s servers come from, each once (a file of thousands named itself each time). */
/** The first servers' names, and how many more: a file may declare thousands. */
function someNames(project: readonly DetectedServer[]): string {
  const shown = project.slice(0, NAMES_SHOWN).map((e) => e.sanitizedName)
  const more = project.length - shown.length
  return more > 0 ? `${shown.join(', ')} and ${more} more` : shown.join(', ')
}

function projectFiles(project: readonly DetectedServer[]): string[] {
  return [...new Set(project.map((e) => printable(e.sources[0]!)))]
}

/**
 * The environment a project's server would get, values shown: they come from the repository, not
 * from the user, and a variable such as NODE_OPTIONS or LD_PRELOAD runs code of its own.
 */
function projectEnv(entry: DetectedServer): string {
  const t = entry.transport
  if (t.type !== 'stdio' || Object.keys(t.env).length === 0) return ''
  const pairs = Object.entries(t.env).map(([k, v]) => printable(`${k}=${v}`))
  return ` with ${pairs.join(' ')}`
}

/** Show a project's only server and ask whether to run it; no answer is no. */
async function confirmProjectServer(entry: DetectedServer, io: ChooseIo): Promise<boolean> {
  io.out(
    `Found one MCP server, declared by this directory's project file ${printable(entry.sources[0]!)}:\n` +
      `  ${entry.sanitizedName} ${transportSummary(entry)}${projectEnv(entry)}\n` +
      'It comes with the project, not from your own configuration, and runs in this directory.\n',
  )
  return askUntil(io, 'Run and expose it? [y/N] ', (a) =>
    a === 'y' || a === 'yes' ? true : a === '' || a === 'n' || a === 'no' ? false : null,
  )
}

/** The numbered list of servers shown before the questions; a project's servers are marked. */
function menu(
  entries: readonly DetectedServer[],
  fromProject: (entry: DetectedServer) => boolean,
): string {
  const lines = entries.map((e, i) => {
    const clients = e.clients.map((c) => CLIENT_LABELS[c]).join(', ')
    const mark = fromProject(e)
      ? `${projectEnv(e)}  [this project's ${printable(e.sources[0]!)}]`
      : ''
    return `  ${i + 1}) ${e.sanitizedName} (${clients}) ${transportSummary(e)}${mark}`
  })
  return `Found ${entries.length} MCP servers:\n${lines.join('\n')}\n`
}

/** Ask `question` until `parse` accepts the (trimmed, lowercased) answer. */
async function askUntil<T>(
  io: ChooseIo,
  question: string,
  parse: (answer: string) => T | null,
): Promise<T> {
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const answer = (await io.ask(question)).trim().toLowerCase()
    const value = parse(answer)
    if (value !== null) return value
    io.out(`"${answer}" is not one of the choices; try again.\n`)
  }
  throw new UsageError(
    `no valid answer after ${MAX_ATTEMPTS} tries; pass --upstream or --stdio to choose without questions`,
  )
}

/**
 * Distinct numbers in 1..max from "2", "1,3", "1-3, 5" (in the order given), or null when any
 * part is not such a number or range, or nothing is picked.
 */
export function pickNumbers(answer: string, max: number): number[] | null {
  // A set keeps the order given and ignores repeats, in linear time (a range of 1-100000 over a
  // file with that many servers was a search of the list for every number).
  const picked = new Set<number>()
  for (const part of answer.split(',').map((p) => p.trim())) {
    const m = /^(\d+)(?:\s*-\s*(\d+))?$/.exec(part)
    if (!m) return null
    const from = Number(m[1])
    const to = m[2] === undefined ? from : Number(m[2])
    if (from < 1 || to > max || from > to) return null
    for (let n = from; n <= to; n++) picked.add(n)
  }
  return picked.size > 0 ? [...picked] : null
}
