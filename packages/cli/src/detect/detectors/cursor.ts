/**
 * Cursor: `~/.cursor/mcp.json` on every OS plus the workspace's `.cursor/mcp.json`, which wins on
 * a name clash. Servers under `mcpServers` as `{command, args, env}` or `{url}` (the transport is
 * inferred). The files are JSONC.
 */
import { join } from 'node:path'
import { preferLast, scanFiles, type Detector } from '../detector.js'
import { isRecord, serversFromTable } from '../server-table.js'

/** Detector for Cursor. */
export const cursorDetector: Detector = {
  client: 'cursor',
  paths: (ctx) => [join(ctx.home, '.cursor', 'mcp.json'), join(ctx.cwd, '.cursor', 'mcp.json')],
  scan: async (env, read) =>
    preferLast(
      await scanFiles(cursorDetector.paths(env.ctx), 'json', read, (doc, source) =>
        cursorDetector.parse(doc, source, env),
      ),
    ),
  parse: (doc, source, { warn }) =>
    isRecord(doc) ? serversFromTable(doc.mcpServers, { client: 'cursor', source, warn }) : [],
}
