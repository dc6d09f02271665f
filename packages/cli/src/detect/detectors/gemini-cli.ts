/**
 * Gemini CLI: `~/.gemini/settings.json` (`%USERPROFILE%\.gemini\settings.json`) plus the project's
 * `.gemini/settings.json`, which wins on a name clash. Servers under `mcpServers` as `{command,
 * args, env}`, `{url, type: "http"}`, a bare `{url}` (HTTP in current Gemini CLI) or the legacy
 * `{httpUrl}`; `type: "sse"` entries are skipped with a warning.
 */
import { join } from 'node:path'
import { preferLast, scanFiles, type Detector } from '../detector.js'
import { isRecord, serversFromTable } from '../server-table.js'

/** Detector for Gemini CLI. */
export const geminiCliDetector: Detector = {
  client: 'gemini-cli',
  paths: (ctx) => [
    join(ctx.home, '.gemini', 'settings.json'),
    join(ctx.cwd, '.gemini', 'settings.json'),
  ],
  scan: async (env, read) =>
    preferLast(
      await scanFiles(geminiCliDetector.paths(env.ctx), 'json', read, (doc, source) =>
        geminiCliDetector.parse(doc, source, env),
      ),
    ),
  parse: (doc, source, { warn }) =>
    isRecord(doc) ? serversFromTable(doc.mcpServers, { client: 'gemini-cli', source, warn }) : [],
}
