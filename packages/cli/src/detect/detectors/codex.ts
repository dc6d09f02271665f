/**
 * Codex (CLI, IDE extension and app): `$CODEX_HOME/config.toml`, by default `~/.codex/config.toml`
 * (`%USERPROFILE%\.codex\config.toml`). One `[mcp_servers.<name>]` table per server with
 * `command`, `args`, `env` or a Streamable HTTP `url`; `enabled = false` turns one off.
 */
import { join } from 'node:path'
import { scanFiles, type Detector } from '../detector.js'
import { isRecord, serversFromTable } from '../server-table.js'

/** Detector for Codex. */
export const codexDetector: Detector = {
  client: 'codex',
  paths: (ctx) => {
    const codexHome = ctx.env.CODEX_HOME
    const dir = codexHome !== undefined && codexHome !== '' ? codexHome : join(ctx.home, '.codex')
    return [join(dir, 'config.toml')]
  },
  scan: (env, read) =>
    scanFiles(codexDetector.paths(env.ctx), 'toml', read, (doc, source) =>
      codexDetector.parse(doc, source, env),
    ),
  parse: (doc, source, { warn }) =>
    isRecord(doc) ? serversFromTable(doc.mcp_servers, { client: 'codex', source, warn }) : [],
}
