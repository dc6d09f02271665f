/**
 * Writes an upstream layout as an upstreams file (the TOML `burrow up --upstreams-file` reads):
 * one `[upstreams.<name>]` table per upstream with `http` or `stdio`. The inspector's Config tab
 * validates this very text with the file's own parser, so what it saves always loads again.
 */
import { randomBytes } from 'node:crypto'
import { rename, rm, writeFile } from 'node:fs/promises'
import { stringify } from 'smol-toml'
import type { UpstreamSpec } from '../upstreams/upstream-spec.js'

/** The table name used for the one upstream of single-upstream mode, which has no name. */
export const SINGLE_UPSTREAM_NAME = 'main'

const HEADER =
  '# Upstreams for "burrow up --upstreams-file <this file>", written by the burrow inspector.\n' +
  '# One [upstreams.<name>] table per local MCP server, each with http = "URL" or stdio = "COMMAND".\n\n'

/** The TOML text of `specs`. Names must already be valid and unique. */
export function upstreamsToToml(specs: readonly UpstreamSpec[]): string {
  const tables: Record<string, Record<string, string>> = {}
  for (const spec of specs) {
    const name = spec.name ?? SINGLE_UPSTREAM_NAME
    tables[name] = spec.kind === 'http' ? { http: spec.url } : { stdio: spec.command }
  }
  return HEADER + stringify({ upstreams: tables })
}

/**
 * Replace the file at `path` with `specs` as TOML. Written to a temporary file first and renamed,
 * so a crash never leaves half a file. Comments of the old file are not kept. The temporary
 * file has a random name and must be new (O_EXCL): the directory may be writable by others
 * (`burrow up` run from /tmp), and one of them could have put a link to another of the user's
 * files at a name known in advance, which the write would have followed.
 */
export async function writeUpstreamsFile(
  path: string,
  specs: readonly UpstreamSpec[],
): Promise<void> {
  const temporary = `${path}.${randomBytes(8).toString('hex')}.tmp`
  const text = upstreamsToToml(specs)
  await writeFile(temporary, text, { encoding: 'utf8', mode: 0o600, flag: 'wx' })
  try {
    await rename(temporary, path)
  } catch (err) {
    await rm(temporary, { force: true })
    throw err
  }
}

/** What the file cannot hold about `specs` (environment variables and pre-split arguments). */
export function unsavedDetails(specs: readonly UpstreamSpec[]): string[] {
  const notes: string[] = []
  for (const spec of specs) {
    if (spec.kind !== 'stdio') continue
    const label = spec.name ?? SINGLE_UPSTREAM_NAME
    const env = Object.keys(spec.env ?? {})
    if (env.length > 0) {
      notes.push(
        `${label}: its environment variables (${env.join(', ')}) are not saved; an upstreams file holds only the command`,
      )
    }
  }
  return notes
}
