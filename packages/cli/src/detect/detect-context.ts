/**
 * Where a scan looks: the platform, the home and application-data folders, the working directory
 * and the environment. Detectors compute every path from this object, so tests point them at a
 * fixture home; `currentDetectContext` is the one place that reads the real process for them.
 */
import { homedir } from 'node:os'
import { join } from 'node:path'

/** The inputs of a scan. */
export interface DetectContext {
  /** Decides the layout of well-known paths (macOS, Windows, or any other as Linux). */
  readonly platform: NodeJS.Platform
  /** The user's home: `%USERPROFILE%` on Windows, `$HOME` elsewhere. */
  readonly home: string
  /**
   * The per-user application-data folder of desktop apps (Electron's `appData`): `%APPDATA%` on
   * Windows, `~/Library/Application Support` on macOS, `$XDG_CONFIG_HOME` or `~/.config` on Linux.
   */
  readonly appData: string
  /** The workspace whose project files (`.cursor/mcp.json`, `.vscode/mcp.json`, …) are read. */
  readonly cwd: string
  /** Environment variables (`CODEX_HOME`, …). */
  readonly env: Readonly<Record<string, string | undefined>>
}

/** What `detectContextFrom` derives a context from. */
export interface ContextSource {
  readonly platform: NodeJS.Platform
  readonly env: Readonly<Record<string, string | undefined>>
  readonly cwd: string
  /** Fallback home when the environment names none. */
  readonly homedir: string
}

/** Build a context from a platform and environment; empty variables count as unset. */
export function detectContextFrom(source: ContextSource): DetectContext {
  const { platform, env, cwd } = source
  const set = (name: string) => (env[name] === undefined || env[name] === '' ? null : env[name])
  const home =
    (platform === 'win32' ? (set('USERPROFILE') ?? set('HOME')) : set('HOME')) ?? source.homedir
  const appData =
    platform === 'win32'
      ? (set('APPDATA') ?? join(home, 'AppData', 'Roaming'))
      : platform === 'darwin'
        ? join(home, 'Library', 'Application Support')
        : (set('XDG_CONFIG_HOME') ?? join(home, '.config'))
  return Object.freeze({ platform, home, appData, cwd, env })
}

/** The context of this process: its platform, environment, home and working directory. */
export function currentDetectContext(): DetectContext {
  return detectContextFrom({
    platform: process.platform,
    env: process.env,
    cwd: process.cwd(),
    homedir: homedir(),
  })
}
