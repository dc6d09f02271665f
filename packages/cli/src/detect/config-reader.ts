/**
 * Reads and parses client configuration files for detection, once per path. A missing file is
 * skipped (silently in a scan, with a warning for an explicit `--config`); a file that exists but
 * cannot be read or parsed yields a warning naming it and the error, and is skipped.
 */
import { constants } from 'node:fs'
import { open } from 'node:fs/promises'
import { parse as parseToml, TomlError } from 'smol-toml'
import { parseJsonc } from './parse-jsonc.js'

/** The syntax of a configuration file; `auto` is JSON if it starts with `{`, else TOML. */
export type ConfigSyntax = 'json' | 'toml' | 'auto'

/** Parsed content of `path`, or undefined when it is missing or broken (already reported). */
export type ConfigReader = (path: string, syntax: ConfigSyntax) => Promise<unknown>

/** Options of `createConfigReader`. */
export interface ConfigReaderOptions {
  /** Report missing files (explicit `--config` paths) instead of skipping them silently. */
  readonly warnIfMissing: boolean
}

const ABSENT = new Set(['ENOENT', 'ENOTDIR'])
/** Far above any client's configuration file. */
export const MAX_CONFIG_BYTES = 4 * 1024 * 1024

/**
 * The text of `path` if it is a regular file of at most `MAX_CONFIG_BYTES`; else a sentence
 * saying what it is. Opened without blocking, so that a FIFO in its place does not hang `detect`,
 * and checked on the open handle, so that a link to `/dev/zero` is not read without end.
 */
async function readConfigText(path: string): Promise<string | { readonly problem: string }> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK)
  try {
    const stat = await handle.stat()
    if (!stat.isFile()) return { problem: 'it is not a regular file' }
    if (stat.size > MAX_CONFIG_BYTES) {
      return { problem: `it is larger than ${MAX_CONFIG_BYTES / 1024 / 1024} MiB` }
    }
    return await handle.readFile('utf8')
  } finally {
    await handle.close()
  }
}

/** A reader that sends every problem to `warn` and caches results by path. */
export function createConfigReader(
  warn: (message: string) => void,
  options: ConfigReaderOptions,
): ConfigReader {
  const cache = new Map<string, Promise<unknown>>()
  const load = async (path: string, syntax: ConfigSyntax): Promise<unknown> => {
    let text: string
    try {
      const read = await readConfigText(path)
      if (typeof read !== 'string') {
        warn(`${path}: ${read.problem}; skipped`)
        return undefined
      }
      text = read
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? ''
      if (ABSENT.has(code)) {
        if (options.warnIfMissing) warn(`${path}: no such file; skipped`)
      } else {
        warn(`${path}: cannot read it (${code || (err as Error).message}); skipped`)
      }
      return undefined
    }
    const actual = syntax === 'auto' ? guessSyntax(text) : syntax
    try {
      return actual === 'toml' ? parseToml(text) : parseJsonc(text)
    } catch (err) {
      warn(`${path}: ${describeParseError(err, actual)}; skipped`)
      return undefined
    }
  }
  return (path, syntax) => {
    let result = cache.get(path)
    if (result === undefined) {
      result = load(path, syntax)
      cache.set(path, result)
    }
    return result
  }
}

/** JSON when the first thing after blanks and comments is `{` (or nothing), else TOML. */
function guessSyntax(text: string): 'json' | 'toml' {
  const start = text.replace(/^(?:\uFEFF|\s+|\/\/[^\n]*|\/\*[\s\S]*?\*\/)*/, '')
  return start === '' || start.startsWith('{') ? 'json' : 'toml'
}

function describeParseError(err: unknown, syntax: ConfigSyntax): string {
  if (err instanceof TomlError) {
    const reason = err.message.split('\n')[0]!.replace(/^Invalid TOML document: /, '')
    return `not valid TOML at line ${err.line} column ${err.column} (${reason})`
  }
  const message = err instanceof Error ? err.message : String(err)
  return `not valid ${syntax === 'toml' ? 'TOML' : 'JSON'} (${message})`
}
