/**
 * The upstreams file (`--upstreams-file`, docs/configuration.md): TOML with one
 * `[upstreams.<name>]` table per upstream, each setting exactly one of `http` or `stdio`. Every
 * rejection names the file, the line (and for a syntax error the column) and the rule; a one-entry
 * file is single-upstream mode.
 */
import { readFileSync } from 'node:fs'
import { UPSTREAM_NAME_PATTERN } from '@burrow/protocol'
import { ambiguousUpstreamNames } from '../aggregator/prefixed-name.js'
import { parse, TomlError } from 'smol-toml'
import { UsageError } from '../cli-errors.js'
import { closestName } from '../did-you-mean.js'
import { NAME_RULE, spec } from './upstream-flags.js'
import type { UpstreamSpec } from './upstream-spec.js'

/** Read and validate an upstreams file. */
export function loadUpstreamsFile(path: string): UpstreamSpec[] {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (err) {
    throw new UsageError(
      `upstreams file ${path}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
    )
  }
  return parseUpstreamsFile(path, text)
}

/** Validate the text of an upstreams file; `path` is only used in messages. */
export function parseUpstreamsFile(path: string, text: string): UpstreamSpec[] {
  const lineOf = (name: string) => headerLine(text, name)
  const duplicate = duplicateHeader(text)
  if (duplicate) {
    throw new UsageError(
      `upstreams file ${path} line ${duplicate.line}: [upstreams.${duplicate.name}] appears twice; names must be unique`,
    )
  }
  let doc: Record<string, unknown>
  try {
    doc = parse(text)
  } catch (err) {
    if (err instanceof TomlError) throw tomlError(path, err)
    throw err
  }
  for (const key of Object.keys(doc)) {
    if (key === 'upstreams') continue
    const near = closestName(key, ['upstreams']) ? ' (did you mean [upstreams.<name>]?)' : ''
    throw new UsageError(
      `upstreams file ${path} line ${topLevelLine(text, key)}: unknown key "${key}"${near}; the file holds only [upstreams.<name>] tables`,
    )
  }
  const tables = doc.upstreams
  if (
    tables === undefined ||
    typeof tables !== 'object' ||
    tables === null ||
    Object.keys(tables).length === 0
  ) {
    throw new UsageError(
      `upstreams file ${path}: no [upstreams.<name>] sections; add e.g. [upstreams.docs] with http = "http://127.0.0.1:3000/mcp"`,
    )
  }
  const entries = Object.entries(tables as Record<string, unknown>)
  const specs = entries.map(([name, table]) => {
    const at = `upstreams file ${path} line ${lineOf(name)}: [upstreams.${name}]`
    if (!UPSTREAM_NAME_PATTERN.test(name))
      throw new UsageError(`${at} has an invalid name; ${NAME_RULE}`)
    if (typeof table !== 'object' || table === null || Array.isArray(table)) {
      throw new UsageError(`${at} must be a table with http = "URL" or stdio = "COMMAND"`)
    }
    const { http, stdio, ...rest } = table as Record<string, unknown>
    if (http !== undefined && stdio !== undefined)
      throw new UsageError(`${at} sets both "http" and "stdio"; keep one`)
    if (http === undefined && stdio === undefined)
      throw new UsageError(`${at} sets neither "http" nor "stdio"; set one`)
    const unknown = Object.keys(rest)[0]
    if (unknown !== undefined) {
      const near = closestName(unknown, ['http', 'stdio'])
      throw new UsageError(
        `upstreams file ${path} line ${keyLine(text, lineOf(name), unknown)}: [upstreams.${name}] has unknown key "${unknown}"${near ? ` (did you mean "${near}"?)` : ''}; only "http" or "stdio" are allowed`,
      )
    }
    const value = http ?? stdio
    if (typeof value !== 'string')
      throw new UsageError(`${at}: "${http !== undefined ? 'http' : 'stdio'}" must be a string`)
    try {
      return spec(http !== undefined ? '--upstream' : '--stdio', name, value)
    } catch (err) {
      throw new UsageError(`${at}: ${(err as Error).message.replace(/^--(upstream|stdio) /, '')}`)
    }
  })
  if (specs.length === 1) return [{ ...specs[0]!, name: null }]
  if (specs.length > 1) {
    const ambiguous = ambiguousUpstreamNames(entries.map(([name]) => name))
    if (ambiguous !== null) throw new UsageError(`upstreams file ${path}: ${ambiguous}`)
  }
  return specs
}

const HEADER = /^\s*\[\s*upstreams\s*\.\s*("?)([^\]"]*)\1\s*\]/

/** A TOML syntax error with its line, column and the lines around it, caret included. */
function tomlError(path: string, err: TomlError): UsageError {
  const reason = err.message.split('\n')[0]!.replace(/^Invalid TOML document: /, '')
  const excerpt = err.codeblock
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => `  ${line}`)
    .join('\n')
  return new UsageError(
    `upstreams file ${path} line ${err.line}, column ${err.column}: not valid TOML: ${reason}\n${excerpt}`,
  )
}

/** The line where the top-level key or table `key` is defined (1 when not found). */
function topLevelLine(text: string, key: string): number {
  const name = escapeRegExp(key)
  const at = new RegExp(`^\\s*(\\[{1,2}\\s*"?${name}"?\\s*[.\\]]|"?${name}"?\\s*[.=])`)
  const i = text.split('\n').findIndex((line) => at.test(line))
  return i === -1 ? 1 : i + 1
}

/** The line of `key = …` in the table whose header is on line `from` (`from` when not found). */
function keyLine(text: string, from: number, key: string): number {
  const at = new RegExp(`^\\s*"?${escapeRegExp(key)}"?\\s*=`)
  const lines = text.split('\n')
  for (let i = from; i < lines.length && !/^\s*\[/.test(lines[i]!); i++)
    if (at.test(lines[i]!)) return i + 1
  return from
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

function headerLine(text: string, name: string): number {
  const lines = text.split('\n')
  const i = lines.findIndex((l) => HEADER.exec(l)?.[2] === name)
  return i === -1 ? 1 : i + 1
}

function duplicateHeader(text: string): { name: string; line: number } | null {
  const seen = new Set<string>()
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const name = HEADER.exec(lines[i]!)?.[2]
    if (name === undefined) continue
    if (seen.has(name)) return { name, line: i + 1 }
    seen.add(name)
  }
  return null
}
