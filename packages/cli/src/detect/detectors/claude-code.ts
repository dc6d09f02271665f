/**
 * Claude Code: `~/.claude.json` (`%USERPROFILE%\.claude.json`) holds the user scope (top-level
 * `mcpServers`) and the local scope of each project (`projects["<abs path>"].mcpServers`); the
 * project scope is `<cwd>/.mcp.json`. Local beats project beats user on a name clash, as in Claude
 * Code. Entries are `{type: "stdio", command, args, env}` or `{type: "http", url}`; project
 * servers the user turned down (`disabledMcpjsonServers`) are skipped.
 */
import { join } from 'node:path'
import type { DetectContext } from '../detect-context.js'
import type { FoundServer } from '../detected-server.js'
import { preferLast, type DetectEnv, type Detector } from '../detector.js'
import { isRecord, serversFromTable } from '../server-table.js'

/** Detector for Claude Code. */
export const claudeCodeDetector: Detector = {
  client: 'claude-code',
  paths: (ctx) => [join(ctx.home, '.claude.json'), join(ctx.cwd, '.mcp.json')],
  scan: async (env, read) => {
    const [userFile, projectFile] = claudeCodeDetector.paths(env.ctx) as [string, string]
    const user = await read(userFile, 'json')
    const project = await read(projectFile, 'json')
    const declined = new Set(isRecord(user) ? declinedProjectServers(user, env.ctx) : [])
    return preferLast([
      ...topLevel(user, userFile, env),
      ...topLevel(project, projectFile, env).filter((s) => !declined.has(s.name)),
      ...localScope(user, userFile, env),
    ])
  },
  parse: (doc, source, env) =>
    preferLast([...topLevel(doc, source, env), ...localScope(doc, source, env)]),
}

function topLevel(doc: unknown, source: string, { warn }: DetectEnv): FoundServer[] {
  return isRecord(doc)
    ? serversFromTable(doc.mcpServers, { client: 'claude-code', source, warn })
    : []
}

function localScope(doc: unknown, source: string, env: DetectEnv): FoundServer[] {
  const project = projectEntry(doc, env.ctx)
  if (project === undefined) return []
  return serversFromTable(project.mcpServers, { client: 'claude-code', source, warn: env.warn })
}

function declinedProjectServers(doc: Record<string, unknown>, ctx: DetectContext): string[] {
  const list = projectEntry(doc, ctx)?.disabledMcpjsonServers
  return Array.isArray(list) ? list.filter((n): n is string => typeof n === 'string') : []
}

/** The `projects` entry for the working directory, if any. */
function projectEntry(doc: unknown, ctx: DetectContext): Record<string, unknown> | undefined {
  if (!isRecord(doc) || !isRecord(doc.projects)) return undefined
  const match = Object.entries(doc.projects).find(([key]) =>
    sameProjectPath(key, ctx.cwd, ctx.platform),
  )
  return match !== undefined && isRecord(match[1]) ? match[1] : undefined
}

/**
 * Whether a `projects` key names `cwd`. Separators and a trailing slash do not matter; on Windows,
 * where Claude Code may write `C:/Users/…`, neither does case.
 */
export function sameProjectPath(key: string, cwd: string, platform: NodeJS.Platform): boolean {
  const norm = (p: string) => {
    const s = withoutTrailingSlashes(p.replace(/\\/g, '/'))
    return platform === 'win32' ? s.toLowerCase() : s
  }
  return norm(key) === norm(cwd)
}

/**
 * `path` without its trailing slashes, keeping the first character (`/` stays `/`). Not a
 * regular expression: `/(.)\/+$/` tried every slash of a long run as the end, which took hours
 * on a key of a few MiB of slashes.
 */
function withoutTrailingSlashes(path: string): string {
  let end = path.length
  while (end > 1 && path[end - 1] === '/') end--
  return path.slice(0, end)
}
