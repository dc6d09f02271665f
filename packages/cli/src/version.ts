/**
 * The CLI's own version, read once from its package.json (shown by --version, sent in HELLO, in
 * the aggregator's serverInfo and in crash reports).
 */
import { readFileSync } from 'node:fs'

function read(): string {
  const file = new URL('../package.json', import.meta.url)
  const { version } = JSON.parse(readFileSync(file, 'utf8')) as { version?: unknown }
  return typeof version === 'string' ? version : 'unknown'
}

/** The version of this burrow. */
export const CLI_VERSION = read()
