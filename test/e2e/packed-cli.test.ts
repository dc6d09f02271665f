// The packed client installs on a machine that has only Node and npm: `npm pack -w packages/cli`
// makes a tarball whose one bundled module carries @burrow/protocol (a workspace on no registry),
// `npm install -g` puts it into an empty prefix with its registry dependencies, and `burrow`
// runs there, away from this repository.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { promisify } from 'node:util'
import { ROOT } from '../helpers/stack.js'

const run = promisify(execFile)
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm'
const VERSION = (
  JSON.parse(readFileSync(join(ROOT, 'packages/cli/package.json'), 'utf8')) as { version: string }
).version

describe('the packed client', () => {
  const dir = mkdtempSync(join(tmpdir(), 'burrow-packed-'))
  const prefix = join(dir, 'prefix')
  const home = join(dir, 'home')
  const elsewhere = join(dir, 'elsewhere')
  const installed = join(prefix, 'lib', 'node_modules', '@burrow', 'cli')
  const burrow = join(prefix, 'bin', 'burrow')
  // npm's own settings as the user has them (registry, cache); only its update check is off.
  const npmEnv = { ...process.env, npm_config_update_notifier: 'false' }
  let tarball: string

  before(async () => {
    mkdirSync(home)
    mkdirSync(elsewhere)
    const { stdout } = await run(
      NPM,
      ['pack', '-w', 'packages/cli', '--pack-destination', dir, '--json'],
      {
        cwd: ROOT,
        env: npmEnv,
        timeout: 120_000,
        maxBuffer: 16 * 1024 * 1024,
      },
    )
    const [packed] = JSON.parse(stdout) as { filename: string }[]
    tarball = join(dir, packed!.filename)
    await run(
      NPM,
      [
        'install',
        '--global',
        '--prefix',
        prefix,
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        tarball,
      ],
      { cwd: elsewhere, env: npmEnv, timeout: 180_000 },
    )
  })

  after(() => rmSync(dir, { recursive: true, force: true }))

  const burrowIn = (cwd: string, args: string[]) => {
    // Detection looks only into this test's home.
    const { XDG_CONFIG_HOME: _x, CODEX_HOME: _c, APPDATA: _a, ...env } = process.env
    return run(burrow, args, { cwd, env: { ...env, HOME: home }, timeout: 30_000 })
  }

  it('is named burrow-cli-<version>.tgz and installs without @burrow/* from any registry', () => {
    assert.match(tarball, /burrow-cli-\d+\.\d+\.\d+\.tgz$/)
    const pkg = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>
    }
    assert.deepEqual(
      Object.keys(pkg.dependencies).filter((name) => name.startsWith('@burrow/')),
      [],
    )
    assert.equal(existsSync(join(installed, 'node_modules', '@burrow')), false)
    assert.equal(existsSync(join(prefix, 'lib', 'node_modules', '@burrow', 'protocol')), false)
  })

  it('burrow --version runs from the prefix, outside the repository', async () => {
    const { stdout } = await burrowIn(elsewhere, ['--version'])
    assert.equal(stdout, `burrow ${VERSION}\n`)
  })

  it('burrow detect reads the client configurations of this home', async () => {
    const empty = await burrowIn(elsewhere, ['detect'])
    assert.match(empty.stdout, /^No MCP servers found/)
    mkdirSync(join(home, '.cursor'))
    writeFileSync(
      join(home, '.cursor', 'mcp.json'),
      JSON.stringify({ mcpServers: { notes: { command: 'notes-server', args: ['--ro'] } } }),
    )
    const { stdout } = await burrowIn(elsewhere, ['detect', '--json'])
    const report = JSON.parse(stdout) as { servers: { name: string }[] }
    assert.deepEqual(
      report.servers.map((s) => s.name),
      ['notes'],
    )
  })
})
