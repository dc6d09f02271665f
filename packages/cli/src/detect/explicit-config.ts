/**
 * Reads one file named with `--config`, whatever client wrote it: TOML with `[mcp_servers.*]` is
 * Codex; JSON with `projects` is Claude Code's `~/.claude.json`; `servers` or `"mcp": {"servers"}`
 * is VS Code; `mcpServers` belongs to the client the file name points at (`.mcp.json`,
 * `claude_desktop_config.json`, `mcp_config.json`, `.cursor/`, `.gemini/`), else to none known.
 */
import { basename, dirname, extname } from 'node:path'
import type { ConfigReader, ConfigSyntax } from './config-reader.js'
import type { ClientId, FoundServer } from './detected-server.js'
import type { DetectEnv, Detector } from './detector.js'
import { claudeCodeDetector } from './detectors/claude-code.js'
import { claudeDesktopDetector } from './detectors/claude-desktop.js'
import { codexDetector } from './detectors/codex.js'
import { cursorDetector } from './detectors/cursor.js'
import { geminiCliDetector } from './detectors/gemini-cli.js'
import { vscodeDetector } from './detectors/vscode.js'
import { windsurfDetector } from './detectors/windsurf.js'
import { isRecord, serversFromTable } from './server-table.js'

/** The servers of the file at `path`; problems (missing, broken, unrecognised) go to `env.warn`. */
export async function serversFromConfigFile(
  path: string,
  env: DetectEnv,
  read: ConfigReader,
): Promise<FoundServer[]> {
  const doc = await read(path, syntaxOf(path))
  if (doc === undefined) return []
  const detector = detectorFor(path, doc)
  if (detector === null) {
    env.warn(
      `${path}: no MCP servers section found (expected "mcpServers", "servers", "mcp": {"servers"} or "projects" in JSON, or [mcp_servers.<name>] tables in TOML); skipped`,
    )
    return []
  }
  if (detector === 'unknown') {
    const client: ClientId = 'unknown'
    return serversFromTable((doc as Record<string, unknown>).mcpServers, {
      ...env,
      client,
      source: path,
    })
  }
  return detector.parse(doc, path, env)
}

function syntaxOf(path: string): ConfigSyntax {
  const ext = extname(path).toLowerCase()
  return ext === '.toml' ? 'toml' : ext === '.json' || ext === '.jsonc' ? 'json' : 'auto'
}

/** Which client's reader applies to `doc`, `unknown` for a plain `mcpServers` file, null if none. */
function detectorFor(path: string, doc: unknown): Detector | 'unknown' | null {
  if (!isRecord(doc)) return null
  const name = basename(path).toLowerCase()
  const folder = basename(dirname(path)).toLowerCase()
  if (doc.mcp_servers !== undefined) return codexDetector
  if (doc.projects !== undefined || name === '.claude.json') return claudeCodeDetector
  if (doc.servers !== undefined || (isRecord(doc.mcp) && doc.mcp.servers !== undefined))
    return vscodeDetector
  if (doc.mcpServers === undefined) return null
  if (name === '.mcp.json') return claudeCodeDetector
  if (name === 'claude_desktop_config.json') return claudeDesktopDetector
  if (name === 'mcp_config.json') return windsurfDetector
  if (folder === '.cursor') return cursorDetector
  if (folder === '.gemini') return geminiCliDetector
  return 'unknown'
}
