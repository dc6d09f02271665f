/**
 * The contract of a client detector (one per client in `detectors/`): where the client keeps its
 * configuration for a given context, how it reads what applies to the working directory, and how
 * it reads one of its files handed over with `--config`.
 */
import { resolve } from 'node:path'
import type { ConfigReader, ConfigSyntax } from './config-reader.js'
import type { DetectContext } from './detect-context.js'
import type { ClientId, FoundServer } from './detected-server.js'

/** What a detector reads with. */
export interface DetectEnv {
  readonly ctx: DetectContext
  readonly warn: (message: string) => void
}

/** One client's knowledge of its configuration files. */
export interface Detector {
  readonly client: ClientId
  /** The well-known files this client reads in `ctx`, lowest precedence first. */
  paths(ctx: DetectContext): string[]
  /** The servers this client would start in `ctx.cwd`, read from its well-known files. */
  scan(env: DetectEnv, read: ConfigReader): Promise<FoundServer[]>
  /** The servers of one parsed file of this client (for `--config`). */
  parse(doc: unknown, source: string, env: DetectEnv): FoundServer[]
}

/** Read every file of `paths` once (in order) with `parse`; missing and broken ones add nothing. */
export async function scanFiles(
  paths: readonly string[],
  syntax: ConfigSyntax,
  read: ConfigReader,
  parse: (doc: unknown, source: string) => FoundServer[],
): Promise<FoundServer[]> {
  const found: FoundServer[] = []
  for (const path of uniquePaths(paths)) {
    const doc = await read(path, syntax)
    // Not `push(...)`: a file's hundred thousand entries as arguments overflow the stack.
    if (doc !== undefined) for (const server of parse(doc, path)) found.push(server)
  }
  return found
}

/**
 * Keep only the last entry of each name: for clients where a project file overrides the user's
 * file (Cursor, Claude Code, Gemini CLI), entries must be listed lowest precedence first. In
 * linear time: a repository's file may hold a hundred thousand entries.
 */
export function preferLast(found: readonly FoundServer[]): FoundServer[] {
  const last = new Map<string, number>()
  found.forEach((entry, i) => last.set(entry.name, i))
  return found.filter((entry, i) => last.get(entry.name) === i)
}

/** Drop repeated paths (a workspace that is the home folder names the same file twice). */
function uniquePaths(paths: readonly string[]): string[] {
  return [...new Map(paths.map((p) => [resolve(p), p])).values()]
}
