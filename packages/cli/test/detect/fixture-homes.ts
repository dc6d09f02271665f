/**
 * Fake homes for detection tests: copies `test/fixtures/detect/<platform>/home` and the shared
 * `workspace/` into a temporary folder, and moves the Claude Code local-scope project recorded in
 * `.claude.json` (e.g. "/Users/me/code/demo") to that temporary workspace, so the real file
 * format is kept while the test controls where the "project" is.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { detectContextFrom, type DetectContext } from '../../src/detect/detect-context.js'

/** Absolute path of `packages/cli/test/fixtures/detect/<rel>`. */
export function detectFixture(rel: string): string {
  return fileURLToPath(new URL(`../fixtures/detect/${rel}`, import.meta.url))
}

/** The platforms the fixtures lay out, by folder name. */
export const LAYOUTS = {
  macos: { platform: 'darwin', project: '/Users/me/code/demo' },
  windows: { platform: 'win32', project: 'C:/Users/me/code/demo' },
  linux: { platform: 'linux', project: '/home/me/code/demo' },
} as const satisfies Record<string, { platform: NodeJS.Platform; project: string }>

/** One platform's fake home and workspace in a temporary folder. */
export interface FixtureHome {
  readonly home: string
  readonly workspace: string
  /** The variables a real process on that platform would have (HOME, APPDATA, …). */
  readonly env: Record<string, string>
  /** The detection context those variables give on that platform, working in `workspace`. */
  readonly ctx: DetectContext
  /** Delete the temporary folder. */
  remove(): void
}

/** Copy the fixture home of `layout` and its workspace into a fresh temporary folder. */
export function fixtureHome(layout: keyof typeof LAYOUTS): FixtureHome {
  const root = mkdtempSync(join(tmpdir(), `burrow-detect-${layout}-`))
  const home = join(root, 'home')
  const workspace = join(root, 'workspace')
  cpSync(detectFixture(`${layout}/home`), home, { recursive: true })
  cpSync(detectFixture('workspace'), workspace, { recursive: true })
  const claudeJson = join(home, '.claude.json')
  const { platform, project } = LAYOUTS[layout]
  writeFileSync(
    claudeJson,
    readFileSync(claudeJson, 'utf8').replace(JSON.stringify(project), JSON.stringify(workspace)),
  )
  const env: Record<string, string> =
    layout === 'windows'
      ? {
          USERPROFILE: home,
          APPDATA: join(home, 'AppData', 'Roaming'),
          CODEX_HOME: join(home, 'codex-home'),
        }
      : layout === 'linux'
        ? { HOME: home, XDG_CONFIG_HOME: join(home, '.config') }
        : { HOME: home }
  const ctx = detectContextFrom({ platform, env, cwd: workspace, homedir: '/nonexistent' })
  return { home, workspace, env, ctx, remove: () => rmSync(root, { recursive: true, force: true }) }
}
