/**
 * The Config tab's form: an upstream layout as editable rows (name, http or stdio, value), and
 * their validation into upstream specs by the same rules as the upstreams file. The rows are
 * turned into upstreams-file TOML and read back with `parseUpstreamsFile`, so the tab accepts
 * exactly what `--upstreams-file` accepts.
 */
import { isRecord, UPSTREAM_NAME_PATTERN } from '@burrow/protocol'
import { UsageError } from '../cli-errors.js'
import { NAME_RULE } from '../upstreams/upstream-flags.js'
import type { UpstreamSpec } from '../upstreams/upstream-spec.js'
import { parseUpstreamsFile } from '../upstreams/upstreams-file.js'
import { SINGLE_UPSTREAM_NAME, upstreamsToToml } from './upstreams-toml.js'

/** One row of the form. `name` may be empty only when it is the only row. */
export interface LayoutRow {
  readonly name: string
  readonly kind: 'http' | 'stdio'
  /** The URL or the command line. */
  readonly value: string
}

/** A validated layout and its upstreams-file text. */
export interface ValidLayout {
  readonly specs: UpstreamSpec[]
  readonly toml: string
}

/** The rows showing `specs`. */
export function rowsFromSpecs(specs: readonly UpstreamSpec[]): LayoutRow[] {
  return specs.map((spec) => ({
    name: spec.name ?? '',
    kind: spec.kind,
    value: spec.kind === 'http' ? spec.url : spec.command,
  }))
}

/**
 * Validate rows sent by the page (untrusted) into specs, or throw a UsageError saying which row is
 * wrong and why. A stdio row left unchanged keeps what `current` knew beyond its command (the
 * arguments and environment read from a client's config file).
 */
export function validateLayout(rows: unknown, current: readonly UpstreamSpec[]): ValidLayout {
  if (!Array.isArray(rows) || rows.length === 0) {
    throw new UsageError('add at least one upstream')
  }
  const seen = new Set<string>()
  const named = rows.map((row, i): LayoutRow => {
    const at = `upstream ${i + 1}`
    if (!isRecord(row)) throw new UsageError(`${at}: not a row`)
    const { name, kind, value } = row
    if (
      typeof name !== 'string' ||
      typeof value !== 'string' ||
      (kind !== 'http' && kind !== 'stdio')
    )
      throw new UsageError(`${at}: needs a name, a kind (http or stdio) and a value`)
    const trimmed = name.trim()
    const single = rows.length === 1 && trimmed === ''
    if (!single) {
      if (trimmed === '')
        throw new UsageError(
          `${at} needs a name: with several upstreams each one is named; ${NAME_RULE}`,
        )
      if (!UPSTREAM_NAME_PATTERN.test(trimmed))
        throw new UsageError(`${at}: name "${trimmed}" is invalid; ${NAME_RULE}`)
      if (seen.has(trimmed))
        throw new UsageError(`${at}: name "${trimmed}" is used twice; names must be unique`)
      seen.add(trimmed)
    }
    return { name: single ? SINGLE_UPSTREAM_NAME : trimmed, kind, value: value.trim() }
  })
  const draft: UpstreamSpec[] = named.map((row) =>
    row.kind === 'http'
      ? { kind: 'http', name: row.name, url: row.value }
      : { kind: 'stdio', name: row.name, command: row.value },
  )
  let specs: UpstreamSpec[]
  try {
    specs = parseUpstreamsFile('layout', upstreamsToToml(draft))
  } catch (err) {
    if (!(err instanceof UsageError)) throw err
    throw new UsageError(err.message.replace(/^upstreams file layout( line \d+)?: /, ''))
  }
  specs = specs.map((spec) => keepDetails(spec, current))
  return { specs, toml: upstreamsToToml(specs) }
}

/** `spec` with the argv/env of the matching stdio entry of `current`, if its command is unchanged. */
function keepDetails(spec: UpstreamSpec, current: readonly UpstreamSpec[]): UpstreamSpec {
  if (spec.kind !== 'stdio') return spec
  const before = current.find(
    (c) => c.kind === 'stdio' && c.command === spec.command && (c.name ?? '') === (spec.name ?? ''),
  )
  if (!before || before.kind !== 'stdio') return spec
  return {
    ...spec,
    ...(before.argv ? { argv: before.argv } : {}),
    ...(before.env ? { env: before.env } : {}),
  }
}
