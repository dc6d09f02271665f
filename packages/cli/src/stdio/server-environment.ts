/**
 * What a stdio server inherits of burrow's environment: all of it, as users expect of a command
 * they could run in their terminal (stdio-supervisor.ts), but burrow's own secrets: a server that
 * shows its environment (a debugging tool, an error dump, server-everything's `get-env`) would
 * hand the tunnel key to any agent of the public URL, who could then take the tunnel over.
 */

/**
 * burrow's secrets, left out of what a stdio server inherits (a server's own `env` in a config
 * file may still set them: that is the user's choice).
 */
export const WITHHELD_FROM_SERVERS: readonly string[] = ['BURROW_API_KEY', 'BURROW_INSPECT_TOKEN']

/**
 * What a stdio server inherits of `env`: all of it but `WITHHELD_FROM_SERVERS`, in any case of
 * their names on Windows, whose variable names are case-insensitive.
 */
export function serverEnvironment(
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
): NodeJS.ProcessEnv {
  const inherited = { ...env }
  const fold = (name: string): string => (platform === 'win32' ? name.toUpperCase() : name)
  for (const name of Object.keys(inherited)) {
    if (WITHHELD_FROM_SERVERS.includes(fold(name))) delete inherited[name]
  }
  return inherited
}
