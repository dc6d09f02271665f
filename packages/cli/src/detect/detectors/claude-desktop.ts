/**
 * Claude Desktop: `claude_desktop_config.json` in the app's data folder (`~/Library/Application
 * Support/Claude` on macOS, `%APPDATA%\Claude` on Windows, `~/.config/Claude` for the unofficial
 * Linux builds), servers under `mcpServers` as `{command, args, env}`.
 */
import { join } from 'node:path'
import { scanFiles, type Detector } from '../detector.js'
import { isRecord, serversFromTable } from '../server-table.js'

/** Detector for Claude Desktop. */
export const claudeDesktopDetector: Detector = {
  client: 'claude-desktop',
  paths: (ctx) => [join(ctx.appData, 'Claude', 'claude_desktop_config.json')],
  scan: (env, read) =>
    scanFiles(claudeDesktopDetector.paths(env.ctx), 'json', read, (doc, source) =>
      claudeDesktopDetector.parse(doc, source, env),
    ),
  parse: (doc, source, { warn }) =>
    isRecord(doc)
      ? serversFromTable(doc.mcpServers, { client: 'claude-desktop', source, warn })
      : [],
}
