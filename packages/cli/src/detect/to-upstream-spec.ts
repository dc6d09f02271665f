/**
 * A detected server as the upstream `burrow up` serves: stdio servers keep their program,
 * arguments and environment exactly as configured (no re-parsing); HTTP servers their URL.
 */
import type { UpstreamSpec } from '../upstreams/upstream-spec.js'
import type { DetectedServer } from './detected-server.js'
import { formatCommandLine } from './format-command-line.js'

/**
 * The upstream for `entry`, named by its sanitised name. In single-upstream mode the caller may
 * replace the name with null.
 */
export function toUpstreamSpec(entry: DetectedServer): UpstreamSpec {
  const t = entry.transport
  if (t.type === 'http') return { kind: 'http', name: entry.sanitizedName, url: t.url }
  const argv = [t.command, ...t.args]
  return {
    kind: 'stdio',
    name: entry.sanitizedName,
    command: formatCommandLine(argv),
    argv,
    env: { ...t.env },
  }
}
