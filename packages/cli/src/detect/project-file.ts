/**
 * Whether a configuration file belongs to the project in the working directory (`.mcp.json`,
 * `.vscode/mcp.json`, `.cursor/mcp.json`, `.gemini/settings.json` under it) rather than to the
 * user. A project's file comes with the repository it sits in: its commands are the repository
 * author's, so `burrow up` does not run them without the user saying so (docs/detect.md). When
 * the working directory is the home directory or above it, every file there is the user's own.
 */
import { realpathSync } from 'node:fs'
import { isAbsolute, relative, resolve, sep } from 'node:path'
import type { DetectContext } from './detect-context.js'

/**
 * True when `path` lies under `ctx.cwd` and the working directory is not home or above it.
 * Directories are compared by their real paths (HOME may name a link to where cwd is). A home
 * that is not an absolute path (`HOME=` or `HOME=.`) is no home: it would make any directory one.
 */
export function isProjectFile(path: string, ctx: Pick<DetectContext, 'cwd' | 'home'>): boolean {
  const cwd = real(resolve(ctx.cwd))
  if (isAbsolute(ctx.home) && inside(real(ctx.home), cwd)) return false
  return inside(resolve(cwd, path), cwd) || inside(resolve(ctx.cwd, path), resolve(ctx.cwd))
}

/** The real path of a directory, or the path as given when it cannot be resolved. */
function real(dir: string): string {
  try {
    return realpathSync.native(dir)
  } catch {
    return dir
  }
}

/** `path` is `dir` or below it (on Windows, a path on another drive comes back absolute). */
function inside(path: string, dir: string): boolean {
  const rel = relative(dir, path)
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel))
}
