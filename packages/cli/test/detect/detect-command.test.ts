/**
 * `burrow detect` end to end: the BUILT binary (`npx tsc -b` first) with `--json --config` and in
 * scan mode with HOME, APPDATA, USERPROFILE, XDG_CONFIG_HOME and CODEX_HOME pointed at a fixture
 * home, checking what a user or a script sees: stdout, stderr and the exit status.
 */
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { after, before, describe, it } from 'node:test'
import type { DetectJson } from '../../src/detect/detect-json.js'
import { detectFixture, fixtureHome, type FixtureHome } from './fixture-homes.js'

const BIN = fileURLToPath(new URL('../../dist/bin/burrow.js', import.meta.url))
const HOME_VARS = ['HOME', 'USERPROFILE', 'APPDATA', 'XDG_CONFIG_HOME', 'CODEX_HOME']

/** Run `burrow detect …` in `cwd` with the home variables replaced by `env`. */
function detect(args: readonly string[], cwd: string, env: Record<string, string>) {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !HOME_VARS.includes(k) && !k.startsWith('BURROW_')),
  )
  const r = spawnSync(process.execPath, [BIN, 'detect', ...args], {
    cwd,
    env: { ...clean, ...env },
    encoding: 'utf8',
    timeout: 20_000,
  })
  return { status: r.status, stdout: r.stdout, stderr: r.stderr }
}

/** This machine's layout, so scan mode runs on the paths the binary really uses here. */
const layout =
  process.platform === 'darwin' ? 'macos' : process.platform === 'win32' ? 'windows' : 'linux'

describe('burrow detect (built binary)', () => {
  let fx: FixtureHome
  before(() => {
    assert.ok(existsSync(BIN), `${BIN} is missing; run "npx tsc -b" first`)
    fx = fixtureHome(layout)
  })
  after(() => fx.remove())

  it('--json --config reads exactly those files; a broken one is a warning, exit 0', () => {
    const broken = detectFixture('broken/mcp.json')
    const codex = detectFixture('macos/home/.codex/config.toml')
    const vscode = detectFixture('windows/home/AppData/Roaming/Code/User/mcp.json')
    const run = detect(
      ['--json', '--config', broken, '--config', codex, '--config', vscode],
      fx.workspace,
      fx.env,
    )
    assert.equal(run.status, 0, run.stderr)
    const doc = JSON.parse(run.stdout) as DetectJson
    assert.deepEqual(
      doc.servers.map((s) => [s.name, s.sanitized_name, s.client]),
      [
        ['context7', 'context7', 'codex'],
        ['figma', 'figma', 'codex'],
        ['github', 'github', 'vscode'],
        [
          'an-extremely-long-server-name-that-goes-past-thirty-two',
          'an-extremely-long-server-name-th',
          'vscode',
        ],
      ],
    )
    assert.deepEqual(doc.servers[0], {
      name: 'context7',
      sanitized_name: 'context7',
      client: 'codex',
      clients: ['codex'],
      source: codex,
      sources: [codex],
      transport: {
        type: 'stdio',
        command: 'npx',
        args: ['-y', '@upstash/context7-mcp'],
        env: { CONTEXT7_API_KEY: 'ctx7_example' },
      },
      notes: [],
    })
    assert.deepEqual(doc.servers[2]!.transport, {
      type: 'http',
      url: 'https://api.githubcopilot.com/mcp/',
    })
    assert.equal(doc.warnings.length, 1)
    assert.ok(doc.warnings[0]!.startsWith(`${broken}: not valid JSON`), doc.warnings[0])
    assert.equal(run.stderr, `burrow: warning: ${doc.warnings[0]}\n`)
  })

  it('--json scans the well-known paths under HOME/APPDATA/XDG_CONFIG_HOME/CODEX_HOME and cwd', () => {
    const run = detect(['--json'], fx.workspace, fx.env)
    assert.equal(run.status, 0, run.stderr)
    const doc = JSON.parse(run.stdout) as DetectJson
    const clients = new Set(doc.servers.flatMap((s) => s.clients))
    assert.deepEqual([...clients].sort(), [
      'claude-code',
      'claude-desktop',
      'codex',
      'cursor',
      'gemini-cli',
      'vscode',
      'windsurf',
    ])
    const playwright = doc.servers.find((s) => s.name === 'playwright')
    assert.equal(playwright?.source, join(fx.workspace, '.vscode', 'mcp.json'))
    const local = doc.servers.find((s) => s.source === join(fx.home, '.claude.json'))
    assert.ok(local, 'a server from ~/.claude.json')
    for (const s of doc.servers) assert.match(s.sanitized_name, /^[a-z][a-z0-9_-]{0,31}$/)
    assert.equal(new Set(doc.servers.map((s) => s.sanitized_name)).size, doc.servers.length)
  })

  it('prints a readable list grouped by client, without env values', () => {
    const run = detect([], fx.workspace, fx.env)
    assert.equal(run.status, 0, run.stderr)
    assert.match(run.stdout, /^Found \d+ MCP servers \(nothing is exposed\):/)
    for (const label of [
      'Claude Desktop',
      'Claude Code',
      'Cursor',
      'VS Code',
      'Windsurf',
      'Gemini CLI',
      'Codex',
    ])
      assert.match(run.stdout, new RegExp(`^${label}$`, 'm'))
    assert.match(
      run.stdout,
      /^ {2}playwright\n {4}stdio: npx @playwright\/mcp@latest\n {4}from .*mcp\.json$/m,
    )
    assert.doesNotMatch(run.stdout, /ctx7_example|ghp_example|"example"/)
  })

  it('says so when nothing is configured', () => {
    const run = detect([], dirname(fx.home), {
      HOME: join(fx.home, 'nowhere'),
      USERPROFILE: join(fx.home, 'nowhere'),
      APPDATA: join(fx.home, 'nowhere'),
      XDG_CONFIG_HOME: join(fx.home, 'nowhere'),
    })
    assert.equal(run.status, 0, run.stderr)
    assert.match(
      run.stdout,
      /^No MCP servers found in the configuration of Claude Desktop, .* or Codex\.\n$/,
    )
    assert.equal(run.stderr, '')
  })

  it("prints a file's escape sequences and direction marks as text, never to the terminal", () => {
    const dir = mkdtempSync(join(tmpdir(), 'burrow-escapes-'))
    try {
      const file = join(dir, 'mcp.json')
      const name = 'notes\x1b]0;pwned\x07'
      const command = 'evil\x1b[2K\rnpx trusted-server\u202e'
      writeFileSync(file, JSON.stringify({ mcpServers: { [name]: { command, args: ['\x9b1m'] } } }))
      const run = detect(['--config', file], dir, {})
      assert.equal(run.status, 0, run.stderr)
      // eslint-disable-next-line no-control-regex
      assert.doesNotMatch(run.stdout, /[\x00-\x09\x0b-\x1f\x7f-\x9f\u202e]/)
      assert.match(run.stdout, /notes\\x1b\]0;pwned\\x07/)
      assert.match(run.stdout, /evil\\x1b\[2K\\x0dnpx trusted-server\\u202e/)
      assert.match(run.stdout, /\\x9b1m/)
      const json = detect(['--json', '--config', file], dir, {})
      const report = JSON.parse(json.stdout) as DetectJson
      assert.equal(report.servers[0]!.name, name, 'JSON keeps the value as written')
      assert.equal(
        report.servers[0]!.transport.type === 'stdio' && report.servers[0]!.transport.command,
        command,
      )
      // …escaped in the JSON text too: JSON.stringify leaves C1 controls and direction marks raw.
      // eslint-disable-next-line no-control-regex
      assert.doesNotMatch(json.stdout, /[\x00-\x09\x0b-\x1f\x7f-\x9f\u202e]/)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('keeps an environment variable named __proto__', () => {
    const dir = mkdtempSync(join(tmpdir(), 'burrow-proto-'))
    try {
      const file = join(dir, 'mcp.json')
      writeFileSync(file, '{"mcpServers":{"a":{"command":"x","env":{"__proto__":"p","B":"b"}}}}')
      const run = detect(['--json', '--config', file], dir, {})
      assert.equal(run.status, 0, run.stderr)
      const transport = (JSON.parse(run.stdout) as DetectJson).servers[0]!.transport
      assert.equal(transport.type, 'stdio')
      assert.deepEqual(Object.entries(transport.type === 'stdio' ? transport.env : {}).sort(), [
        ['B', 'b'],
        ['__proto__', 'p'],
      ])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
