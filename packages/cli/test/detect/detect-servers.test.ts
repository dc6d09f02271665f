// Scanning the well-known paths of all seven clients, laid out as on macOS, Windows and Linux.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { MAX_CONFIG_BYTES } from '../../src/detect/config-reader.js'
import { detectContextFrom } from '../../src/detect/detect-context.js'
import { detectServers, type DetectionResult } from '../../src/detect/detect-servers.js'
import type { DetectedServer } from '../../src/detect/detected-server.js'
import { fixtureHome, type FixtureHome } from './fixture-homes.js'

const byName = (result: DetectionResult, name: string): DetectedServer => {
  const entry = result.entries.find((e) => e.sanitizedName === name)
  assert.ok(entry, `no entry "${name}" in ${result.entries.map((e) => e.sanitizedName).join(', ')}`)
  return entry
}

describe('detectServers on a macOS home', () => {
  let fx: FixtureHome
  let result: DetectionResult
  before(async () => {
    fx = fixtureHome('macos')
    result = await detectServers(fx.ctx)
  })
  after(() => fx.remove())

  it('finds every client’s servers, merged and named, in client order', () => {
    assert.deepEqual(
      result.entries.map((e) => [e.sanitizedName, e.clients.join('+')]),
      [
        ['filesystem', 'claude-desktop+claude-code'],
        ['github_tools', 'claude-desktop'],
        ['sentry', 'claude-code+gemini-cli'],
        ['docs', 'claude-code+cursor'],
        ['api', 'claude-code'],
        ['my-server-', 'claude-code'],
        ['linear', 'cursor'],
        ['shadowed', 'cursor'],
        ['perplexity', 'vscode'],
        ['fetch', 'vscode+windsurf'],
        ['remote', 'vscode'],
        ['memory', 'vscode'],
        ['playwright', 'vscode'],
        ['figma', 'windsurf+codex'],
        ['context7', 'gemini-cli'],
        ['gemini-tool', 'gemini-cli'],
        ['context7-2', 'codex'],
      ],
    )
  })
  it('warns about the legacy SSE entry and nothing else', () => {
    assert.equal(result.warnings.length, 1)
    assert.match(result.warnings[0]!, /\.claude\.json: server "legacy-sse" uses the legacy SSE/)
  })
  it('Claude Desktop: stdio entries with env, disabled ones skipped', () => {
    const gh = byName(result, 'github_tools')
    assert.equal(gh.name, 'GitHub__Tools')
    assert.equal(
      gh.source,
      join(fx.home, 'Library', 'Application Support', 'Claude', 'claude_desktop_config.json'),
    )
    assert.deepEqual(gh.transport, {
      type: 'stdio',
      command: 'docker',
      args: [
        'run',
        '-i',
        '--rm',
        '-e',
        'GITHUB_PERSONAL_ACCESS_TOKEN',
        'ghcr.io/github/github-mcp-server',
      ],
      env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_example' },
    })
    assert.ok(!result.entries.some((e) => e.name === 'old-one'))
  })
  it('Claude Code: user scope, project .mcp.json, local scope of this project only', () => {
    assert.deepEqual(byName(result, 'sentry').transport, {
      type: 'http',
      url: 'https://mcp.sentry.dev/mcp',
    })
    assert.equal(byName(result, 'my-server-').name, 'My Server!')
    assert.equal(byName(result, 'my-server-').source, join(fx.home, '.claude.json'))
    assert.equal(byName(result, 'api').source, join(fx.workspace, '.mcp.json'))
    assert.match(byName(result, 'api').notes.join('\n'), /\$\{API_KEY:-none\}/)
    assert.ok(!result.entries.some((e) => e.name === 'other-project'), 'another project’s server')
    assert.ok(!result.entries.some((e) => e.name === 'declined'), 'disabledMcpjsonServers')
  })
  it('Cursor: JSONC, url form, the workspace file wins on a name clash', () => {
    assert.deepEqual(byName(result, 'linear').transport, {
      type: 'http',
      url: 'https://mcp.linear.app/mcp',
    })
    assert.match(byName(result, 'linear').notes.join('\n'), /headers \(Authorization\)/)
    const shadowed = byName(result, 'shadowed')
    assert.deepEqual(shadowed.transport.type === 'stdio' && shadowed.transport.args, [
      'workspace-version.js',
    ])
    assert.equal(shadowed.source, join(fx.workspace, '.cursor', 'mcp.json'))
  })
  it('VS Code: user mcp.json with inputs, Insiders legacy settings.json, workspace file', () => {
    const p = byName(result, 'perplexity')
    assert.deepEqual(p.transport.type === 'stdio' && p.transport.env, {
      PERPLEXITY_API_KEY: '${input:perplexity-key}',
    })
    assert.match(p.notes.join('\n'), /\$\{input:perplexity-key\}.*"Perplexity API Key"/)
    assert.equal(
      byName(result, 'memory').source,
      join(fx.home, 'Library', 'Application Support', 'Code - Insiders', 'User', 'settings.json'),
    )
    assert.equal(byName(result, 'playwright').source, join(fx.workspace, '.vscode', 'mcp.json'))
    assert.deepEqual(byName(result, 'fetch').sources, [
      join(fx.home, 'Library', 'Application Support', 'Code', 'User', 'mcp.json'),
      join(fx.workspace, '.vscode', 'mcp.json'),
      join(fx.home, '.codeium', 'windsurf', 'mcp_config.json'),
    ])
  })
  it('Windsurf serverUrl, Gemini httpUrl and project override, Codex TOML', () => {
    assert.deepEqual(byName(result, 'figma').transport, {
      type: 'http',
      url: 'https://mcp.figma.com/mcp',
    })
    assert.deepEqual(byName(result, 'context7').transport, {
      type: 'http',
      url: 'https://mcp.context7.com/mcp',
    })
    const tool = byName(result, 'gemini-tool')
    assert.equal(tool.transport.type === 'stdio' && tool.transport.command, 'python3')
    assert.deepEqual(byName(result, 'context7-2').transport, {
      type: 'stdio',
      command: 'npx',
      args: ['-y', '@upstash/context7-mcp'],
      env: { CONTEXT7_API_KEY: 'ctx7_example' },
    })
    assert.equal(byName(result, 'context7-2').source, join(fx.home, '.codex', 'config.toml'))
    assert.ok(!result.entries.some((e) => e.name === 'off'), 'enabled = false')
  })
})

describe('detectServers on a Windows home', () => {
  let fx: FixtureHome
  let result: DetectionResult
  before(async () => {
    fx = fixtureHome('windows')
    result = await detectServers(fx.ctx)
  })
  after(() => fx.remove())

  it('reads %APPDATA%, %USERPROFILE%, the second Windsurf path and %CODEX_HOME%', () => {
    assert.deepEqual(
      result.entries.map((e) => e.sanitizedName),
      [
        'filesystem',
        'srv-123abc',
        'docs',
        'declined',
        'api',
        'win-local',
        'caf---n-code--',
        'shadowed',
        'github',
        'an-extremely-long-server-name-th',
        'playwright',
        'fetch',
        'figma',
        'notion',
        'gemini-tool',
        'sentry',
        'codex-win',
      ],
    )
    assert.deepEqual(result.warnings, [])
  })
  it('keeps Windows paths and the names as found', () => {
    const node = byName(result, 'srv-123abc')
    assert.equal(node.name, '123abc')
    assert.equal(node.source, join(fx.env.APPDATA!, 'Claude', 'claude_desktop_config.json'))
    assert.equal(
      node.transport.type === 'stdio' && node.transport.command,
      'C:\\Program Files\\nodejs\\node.exe',
    )
    assert.equal(byName(result, 'caf---n-code--').name, 'Café Ünïcode ✨')
    assert.equal(byName(result, 'figma').source, join(fx.home, '.codeium', 'mcp_config.json'))
    assert.deepEqual(byName(result, 'notion').transport, {
      type: 'http',
      url: 'https://mcp.notion.com/mcp',
    })
    assert.deepEqual(byName(result, 'codex-win').transport, {
      type: 'stdio',
      command: 'npx',
      args: ['-y', 'codex-win-server'],
      env: { LOG_LEVEL: 'debug' },
    })
    assert.ok(!result.entries.some((e) => e.name === 'ignored-codex'), 'CODEX_HOME wins')
  })
})

describe('detectServers on a Linux home', () => {
  let fx: FixtureHome
  let result: DetectionResult
  before(async () => {
    fx = fixtureHome('linux')
    result = await detectServers(fx.ctx)
  })
  after(() => fx.remove())

  it('reads $XDG_CONFIG_HOME for Claude Desktop and VS Code, dotfiles for the rest', () => {
    assert.deepEqual(
      result.entries.map((e) => e.sanitizedName),
      [
        'filesystem',
        'sentry',
        'docs',
        'declined',
        'api',
        'linux-local',
        'linear',
        'shadowed',
        'legacy-vscode',
        'remote',
        'playwright',
        'fetch',
        'figma',
        'gemini-tool',
        'linux-codex',
      ],
    )
    assert.equal(
      byName(result, 'legacy-vscode').source,
      join(fx.home, '.config', 'Code', 'User', 'settings.json'),
    )
  })
  it('a broken file is a warning naming it and the error; the rest is still read', () => {
    assert.equal(result.warnings.length, 1)
    const warning = result.warnings[0]!
    assert.ok(warning.startsWith(join(fx.home, '.gemini', 'settings.json')), warning)
    assert.match(warning, /not valid JSON .*line \d+ column \d+.*; skipped$/)
    assert.deepEqual(byName(result, 'sentry').clients, ['claude-code', 'gemini-cli'])
  })
})

describe('detectServers with nothing configured', () => {
  it('finds nothing and warns about nothing when no file exists', async () => {
    const ctx = detectContextFrom({
      platform: 'linux',
      env: { HOME: '/nonexistent/home' },
      cwd: '/nonexistent/cwd',
      homedir: '/nonexistent/home',
    })
    assert.deepEqual(await detectServers(ctx), { entries: [], warnings: [] })
  })
})

describe('detectServers on a repository file of 180,000 servers', () => {
  let dir: string
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'burrow-detect-many-'))
    const table = Object.fromEntries(
      Array.from({ length: 180_000 }, (_, i) => [String(i), { url: 'h' }]),
    )
    const text = JSON.stringify({ mcpServers: table })
    assert.ok(text.length < MAX_CONFIG_BYTES)
    writeFileSync(join(dir, '.mcp.json'), text)
  })
  after(() => rmSync(dir, { recursive: true, force: true }))

  it('reads them all, scanning and with --config (each file added as arguments overflowed the stack)', async () => {
    const ctx = detectContextFrom({ platform: 'linux', env: { HOME: dir }, cwd: dir, homedir: dir })
    for (const configs of [[], ['.mcp.json']]) {
      const result = await detectServers(ctx, configs)
      assert.deepEqual(result.warnings, [])
      // One transport for all: merged into the first, listed once.
      assert.equal(result.entries.length, 1)
      assert.equal(result.entries[0]!.name, '0')
    }
  })
})
