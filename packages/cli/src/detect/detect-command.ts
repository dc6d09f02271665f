/**
 * `burrow detect [--config <PATH>]... [--json]` (docs/detect.md): list the MCP servers configured
 * in local clients without exposing anything. Warnings go to stderr; the exit status is 0 even when
 * some files were skipped.
 */
import type { DetectOptions } from '../config.js'
import { printableJson } from '../printable.js'
import { currentDetectContext, type DetectContext } from './detect-context.js'
import { detectJson } from './detect-json.js'
import { formatDetectReport } from './detect-report.js'
import { detectServers } from './detect-servers.js'

export { toUpstreamSpec } from './to-upstream-spec.js'

/** Where `detect` writes: `out` for the list or JSON, `warn` for skipped files and entries. */
export interface DetectIo {
  out(text: string): void
  warn(text: string): void
}

/**
 * Run `detect`. `ctx` defaults to this process's platform, environment (HOME, USERPROFILE,
 * APPDATA, XDG_CONFIG_HOME, CODEX_HOME) and working directory. Resolves to the exit status.
 */
export async function detectCommand(
  opts: DetectOptions,
  io: DetectIo,
  ctx: DetectContext = currentDetectContext(),
): Promise<number> {
  const result = await detectServers(ctx, opts.configPaths)
  for (const warning of result.warnings) io.warn(`burrow: warning: ${warning}\n`)
  if (opts.json) io.out(`${printableJson(JSON.stringify(detectJson(result), null, 2))}\n`)
  else io.out(formatDetectReport(result.entries, opts.configPaths.length > 0))
  return 0
}
