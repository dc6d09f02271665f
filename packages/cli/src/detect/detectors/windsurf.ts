/**
 * Windsurf: `~/.codeium/windsurf/mcp_config.json` (`%USERPROFILE%\.codeium\windsurf\…` on
 * Windows); some newer docs show `~/.codeium/mcp_config.json`, so both are probed. Servers under
 * `mcpServers` as `{command, args, env}` or `{serverUrl}` / `{url}`.
 */
import { join } from 'node:path'
import { scanFiles, type Detector } from '../detector.js'
import { isRecord, serversFromTable } from '../server-table.js'

/** Detector for Windsurf. */
export const windsurfDetector: Detector = {
  client: 'windsurf',
  paths: (ctx) => [
    join(ctx.home, '.codeium', 'windsurf', 'mcp_config.json'),
    join(ctx.home, '.codeium', 'mcp_config.json'),
  ],
  scan: (env, read) =>
    scanFiles(windsurfDetector.paths(env.ctx), 'json', read, (doc, source) =>
      windsurfDetector.parse(doc, source, env),
    ),
  parse: (doc, source, { warn }) =>
    isRecord(doc) ? serversFromTable(doc.mcpServers, { client: 'windsurf', source, warn }) : [],
}
