/**
 * `--upstream` and `--stdio` values (docs/configuration.md): one bare value is single-upstream
 * mode; two or more make aggregator mode, where each must be `name=value` with a unique valid name.
 */
import { UPSTREAM_NAME_PATTERN } from '@burrow/protocol'
import { ambiguousUpstreamNames } from '../aggregator/prefixed-name.js'
import { UsageError } from '../cli-errors.js'
import type { UpstreamSpec } from './upstream-spec.js'

/** The rule every upstream name follows, as quoted in messages. */
export const NAME_RULE = 'names are 1-32 characters: a lower-case letter, then a-z, 0-9, "_" or "-"'

/** One flag occurrence, in command-line order. */
export interface UpstreamFlag {
  readonly flag: '--upstream' | '--stdio'
  readonly value: string
}

/** Turn the flags into upstream specs, or throw a UsageError naming the flag and the rule. */
export function upstreamsFromFlags(flags: readonly UpstreamFlag[]): UpstreamSpec[] {
  if (flags.length === 1) {
    const only = flags[0]!
    return [spec(only.flag, null, only.value)]
  }
  const seen = new Set<string>()
  const specs = flags.map(({ flag, value }) => {
    const eq = value.indexOf('=')
    const name = eq > 0 ? value.slice(0, eq) : ''
    // "npx x --port=3" or a URL with a query is a bare value, not a name=value pair.
    if (!/^[A-Za-z0-9_.-]+$/.test(name)) {
      const example =
        flag === '--stdio' ? 'files="npx files-server"' : 'docs=http://127.0.0.1:3000/mcp'
      throw new UsageError(
        `${flag} "${value}": with several upstreams (aggregator mode) each must be name=value, e.g. ${flag} ${example}; ${NAME_RULE}`,
      )
    }
    if (!UPSTREAM_NAME_PATTERN.test(name))
      throw new UsageError(`${flag} "${value}": upstream name "${name}" is invalid; ${NAME_RULE}`)
    if (seen.has(name))
      throw new UsageError(
        `${flag} "${value}": upstream name "${name}" is used twice; names must be unique`,
      )
    seen.add(name)
    return spec(flag, name, value.slice(eq + 1))
  })
  const ambiguous = ambiguousUpstreamNames([...seen])
  if (ambiguous !== null) throw new UsageError(ambiguous)
  return specs
}

/** Validate one value: an http(s) URL for --upstream, a non-empty command for --stdio. */
export function spec(
  flag: '--upstream' | '--stdio',
  name: string | null,
  value: string,
): UpstreamSpec {
  if (value.trim() === '') throw new UsageError(`${flag} needs a value`)
  if (flag === '--stdio') return { kind: 'stdio', name, command: value }
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new UsageError(`${flag} "${value}" is not a URL; use e.g. http://127.0.0.1:3000/mcp`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`${flag} "${value}" must be an http:// or https:// URL`)
  }
  return { kind: 'http', name, url: url.toString() }
}
