/**
 * Auto-detection (docs/detect.md): scan the well-known configuration files of every supported
 * client for the context, or read exactly the files given with `--config`, and return the servers
 * found, merged and named, with the warnings met on the way. Detection never throws for a bad file.
 */
import { isAbsolute, resolve } from 'node:path'
import { ALL_DETECTORS } from './all-detectors.js'
import { createConfigReader } from './config-reader.js'
import type { DetectContext } from './detect-context.js'
import type { DetectedServer, FoundServer } from './detected-server.js'
import type { DetectEnv } from './detector.js'
import { serversFromConfigFile } from './explicit-config.js'
import { mergeDuplicates } from './merge-duplicates.js'
import { printable } from '../printable.js'

/** The outcome of a detection. */
export interface DetectionResult {
  readonly entries: DetectedServer[]
  /** One line per skipped file or entry, naming it and why. */
  readonly warnings: string[]
}

/**
 * Detect servers for `ctx`. With `configPaths` (non-empty), read exactly those files (relative
 * paths from `ctx.cwd`; a missing one is a warning) instead of scanning.
 */
export async function detectServers(
  ctx: DetectContext,
  configPaths: readonly string[] = [],
): Promise<DetectionResult> {
  const warnings: string[] = []
  // Warnings quote what files hold (names, values): escape what a terminal would act on.
  const env: DetectEnv = { ctx, warn: (message) => void warnings.push(printable(message)) }
  const explicit = configPaths.length > 0
  const read = createConfigReader(env.warn, { warnIfMissing: explicit })
  // Lists joined with `concat`, not `push(...)`: a file may hold a hundred thousand entries, too
  // many to pass as arguments (the stack overflowed).
  let found: FoundServer[] = []
  if (explicit) {
    const paths = [...new Set(configPaths.map((p) => (isAbsolute(p) ? p : resolve(ctx.cwd, p))))]
    for (const path of paths) found = found.concat(await serversFromConfigFile(path, env, read))
  } else {
    for (const detector of ALL_DETECTORS) found = found.concat(await detector.scan(env, read))
  }
  return { entries: mergeDuplicates(found), warnings }
}
