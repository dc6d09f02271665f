/**
 * Where `burrow` keeps small files of its own between runs (the update check's state): the
 * user's cache directory, as each platform defines it. Pure: the environment, platform and home
 * directory are passed in, so `config.ts` stays the only reader of `process.env`.
 */
import { join, win32 } from 'node:path'

/** The environment variables this reads. */
export type CacheDirEnv = Readonly<Record<string, string | undefined>>

/**
 * `burrow`'s cache directory: `%LOCALAPPDATA%\burrow` on Windows; elsewhere
 * `$XDG_CACHE_HOME/burrow` when that is set, else `~/Library/Caches/burrow` on macOS and
 * `~/.cache/burrow` on other systems. An empty or relative `XDG_CACHE_HOME` is ignored, as the
 * XDG specification says.
 */
export function userCacheDir(env: CacheDirEnv, platform: NodeJS.Platform, home: string): string {
  if (platform === 'win32') {
    const local = env.LOCALAPPDATA
    return local ? win32.join(local, 'burrow') : win32.join(home, 'AppData', 'Local', 'burrow')
  }
  const xdg = env.XDG_CACHE_HOME
  if (xdg && xdg.startsWith('/')) return join(xdg, 'burrow')
  if (platform === 'darwin') return join(home, 'Library', 'Caches', 'burrow')
  return join(home, '.cache', 'burrow')
}
