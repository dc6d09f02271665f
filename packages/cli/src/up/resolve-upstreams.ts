/**
 * Which upstreams `up` serves: the flags' or the upstreams file's, or else the servers configured
 * in local AI clients (docs/detect.md): one is exposed directly; several are offered on a terminal
 * (one, or several aggregated) and all aggregated, with a warning, without one. A server only the
 * working directory's project files declare needs the user's yes (`--config` files are trusted:
 * the user named them).
 */
import { createInterface, type Interface } from 'node:readline/promises'
import type { Logger } from '@burrow/protocol'
import { UsageError } from '../cli-errors.js'
import type { UpOptions } from '../config.js'
import { chooseUpstreams } from '../detect/choose-upstreams.js'
import { currentDetectContext } from '../detect/detect-context.js'
import { detectServers } from '../detect/detect-servers.js'
import type { DetectedServer } from '../detect/detected-server.js'
import { isProjectFile } from '../detect/project-file.js'
import { toUpstreamSpec } from '../detect/to-upstream-spec.js'
import type { UpstreamSpec } from '../upstreams/upstream-spec.js'

/** One answer from the terminal; Ctrl+D or Ctrl+C there is no answer (a usage error, not a crash). */
async function askLine(rl: Interface, question: string): Promise<string> {
  try {
    return await rl.question(question)
  } catch (err) {
    if ((err as Error).name !== 'AbortError') throw err
    throw new UsageError(
      'no answer (input ended); pass --upstream or --stdio to choose without questions',
    )
  }
}

/** The layout to serve, asking the user when detection found several servers on a terminal. */
export async function resolveUpstreams(
  up: UpOptions,
  log: Logger,
  out: (text: string) => void,
): Promise<UpstreamSpec[]> {
  if (up.upstreams.length > 0) return [...up.upstreams]
  const ctx = currentDetectContext()
  const { entries, warnings } = await detectServers(ctx, up.configPaths)
  for (const warning of warnings) log.warn(warning)
  const isTTY = Boolean(process.stdin.isTTY && process.stdout.isTTY)
  const rl = isTTY ? createInterface({ input: process.stdin, output: process.stdout }) : null
  try {
    const scanned = up.configPaths.length === 0
    const fromProject = (entry: DetectedServer): boolean =>
      scanned && entry.sources.every((source) => isProjectFile(source, ctx))
    const chosen = await chooseUpstreams(
      entries,
      {
        isTTY,
        ask: (question) => (rl ? askLine(rl, question) : Promise.resolve('')),
        warn: (message) => log.warn(message),
        out,
      },
      fromProject,
    )
    const specs = chosen.map(toUpstreamSpec)
    return specs.length === 1 ? [{ ...specs[0]!, name: null }] : specs
  } finally {
    rl?.close()
  }
}
