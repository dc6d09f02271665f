/**
 * Paths of the tiny real programs tests run as children: the repository's `test/fixtures/` and the
 * MCP reference server (`@modelcontextprotocol/server-everything`, a root devDependency).
 */
import { fileURLToPath } from 'node:url'

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url))

/** Absolute path of `test/fixtures/<name>`. */
export function fixturePath(name: string): string {
  return `${repoRoot}test/fixtures/${name}`
}

/** The command line of server-everything over stdio, run with the current Node. */
export const everythingServer: { readonly command: string; readonly args: readonly string[] } = {
  command: process.execPath,
  args: [`${repoRoot}node_modules/@modelcontextprotocol/server-everything/dist/index.js`, 'stdio'],
}
