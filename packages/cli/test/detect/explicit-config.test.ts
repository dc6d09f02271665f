// `--config <PATH>`: exactly the given files, whatever client wrote them, instead of a scan.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { detectServers } from '../../src/detect/detect-servers.js'
import { detectFixture, fixtureHome, type FixtureHome } from './fixture-homes.js'

describe('detectServers with --config files', () => {
  let fx: FixtureHome
  let scratch: string
  before(() => {
    fx = fixtureHome('macos')
    scratch = mkdtempSync(join(tmpdir(), 'burrow-detect-config-'))
  })
  after(() => {
    fx.remove()
    rmSync(scratch, { recursive: true, force: true })
  })
  const clientsOf = async (path: string) => {
    const { entries, warnings } = await detectServers(fx.ctx, [path])
    assert.deepEqual(
      warnings.filter((w) => !w.includes('legacy SSE')),
      [],
    )
    return [...new Set(entries.map((e) => e.client))]
  }

  it('tells each client’s file apart by content and name', async () => {
    const appSupport = join(fx.home, 'Library', 'Application Support')
    assert.deepEqual(await clientsOf(join(appSupport, 'Claude', 'claude_desktop_config.json')), [
      'claude-desktop',
    ])
    assert.deepEqual(await clientsOf(join(fx.home, '.claude.json')), ['claude-code'])
    assert.deepEqual(await clientsOf(join(fx.workspace, '.mcp.json')), ['claude-code'])
    assert.deepEqual(await clientsOf(join(fx.home, '.cursor', 'mcp.json')), ['cursor'])
    assert.deepEqual(await clientsOf(join(appSupport, 'Code', 'User', 'mcp.json')), ['vscode'])
    assert.deepEqual(
      await clientsOf(join(appSupport, 'Code - Insiders', 'User', 'settings.json')),
      ['vscode'],
    )
    assert.deepEqual(await clientsOf(join(fx.home, '.codeium', 'windsurf', 'mcp_config.json')), [
      'windsurf',
    ])
    assert.deepEqual(await clientsOf(join(fx.home, '.gemini', 'settings.json')), ['gemini-cli'])
    assert.deepEqual(await clientsOf(join(fx.home, '.codex', 'config.toml')), ['codex'])
  })
  it('reads only the given files, relative ones from the working directory', async () => {
    const { entries } = await detectServers(fx.ctx, ['.vscode/mcp.json'])
    assert.deepEqual(
      entries.map((e) => e.sanitizedName),
      ['playwright', 'fetch'],
    )
  })
  it('reads ~/.claude.json with both scopes for the working directory', async () => {
    const { entries } = await detectServers(fx.ctx, [join(fx.home, '.claude.json')])
    assert.deepEqual(
      entries.map((e) => e.name),
      ['filesystem', 'sentry', 'My Server!'],
    )
  })
  it('an mcpServers file of no known client is read, as client "unknown"', async () => {
    const path = join(scratch, 'servers.json')
    writeFileSync(path, '{"mcpServers": {"x": {"command": "node", "args": ["x.js"]}}}')
    const { entries } = await detectServers(fx.ctx, [path])
    assert.deepEqual(
      entries.map((e) => [e.name, e.client]),
      [['x', 'unknown']],
    )
  })
  it('recognises TOML by content when the name says nothing', async () => {
    const path = join(scratch, 'codex-config')
    writeFileSync(path, '# codex\n[mcp_servers.t]\nurl = "http://127.0.0.1:9/mcp"\n')
    const { entries } = await detectServers(fx.ctx, [path])
    assert.deepEqual(
      entries.map((e) => [e.name, e.client, e.transport]),
      [['t', 'codex', { type: 'http', url: 'http://127.0.0.1:9/mcp' }]],
    )
  })
  it('missing, broken and unrelated files are warnings; the others are still read', async () => {
    const unrelated = join(scratch, 'package.json')
    writeFileSync(unrelated, '{"name": "not-mcp"}')
    const badToml = join(scratch, 'bad.toml')
    writeFileSync(badToml, '[mcp_servers.x]\ncommand = = "node"\n')
    const missing = join(scratch, 'missing.json')
    const broken = detectFixture('broken/mcp.json')
    const { entries, warnings } = await detectServers(fx.ctx, [
      missing,
      broken,
      unrelated,
      badToml,
      join(fx.workspace, '.cursor', 'mcp.json'),
    ])
    assert.deepEqual(
      entries.map((e) => e.name),
      ['shadowed'],
    )
    assert.equal(warnings.length, 4)
    assert.equal(warnings[0], `${missing}: no such file; skipped`)
    assert.match(warnings[1]!, /broken\/mcp\.json: not valid JSON .*at line 5 column 7/)
    assert.match(warnings[2]!, /package\.json: no MCP servers section found .*mcpServers/)
    assert.match(warnings[3]!, /bad\.toml: not valid TOML at line 2 column \d+/)
  })
})
