// burrow as a single executable (`npm run sea`): built from this checkout into a temporary
// directory, it runs with no Node.js installation of its own and nothing beside it: --version,
// detect, and a real tunnel through a real burrowd to a stdio server.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { promisify } from 'node:util'
import { startChild } from '../helpers/child.js'
import { ROOT, startService, type Service } from '../helpers/stack.js'

const run = promisify(execFile)

// Linux only: macOS needs the copy of node re-signed, and Windows a PE resource; neither is built.
describe('burrow as a single executable', { skip: process.platform !== 'linux' }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'burrow-sea-'))
  const home = join(dir, 'home')
  let exe: string
  // Only the variables the executable needs: it must not lean on NODE_OPTIONS or a Node on PATH.
  const env = () => ({ HOME: home, PATH: '/usr/bin:/bin', BURROW_NO_UPDATE_CHECK: '1' })

  before(async () => {
    mkdirSync(home)
    const { stdout } = await run(process.execPath, [join(ROOT, 'scripts/build-sea.mjs'), dir], {
      timeout: 120_000,
    })
    exe = stdout.trim()
  })

  after(() => rmSync(dir, { recursive: true, force: true }))

  it('prints its version, and nothing else', async () => {
    const { stdout, stderr } = await run(exe, ['--version'], { cwd: dir, env: env() })
    assert.match(stdout, /^burrow \d+\.\d+\.\d+\n$/)
    assert.equal(stderr, '')
  })

  it('detects the servers configured in this home', async () => {
    mkdirSync(join(home, '.cursor'))
    writeFileSync(
      join(home, '.cursor', 'mcp.json'),
      JSON.stringify({ mcpServers: { notes: { command: 'notes-server' } } }),
    )
    const { stdout } = await run(exe, ['detect', '--json'], { cwd: dir, env: env() })
    const report = JSON.parse(stdout) as { servers: { name: string }[] }
    assert.deepEqual(
      report.servers.map((s) => s.name),
      ['notes'],
    )
  })

  describe('with a service', () => {
    let service: Service
    before(async () => {
      service = await startService()
    })
    after(async () => {
      await service?.close()
    })

    it('goes online with a stdio server and exits 0 on SIGTERM', async () => {
      const tunnel = await service.tunnel('sea')
      const server = `${process.execPath} -e "setInterval(() => {}, 1000)"`
      const cli = startChild(exe, ['--broker', service.broker, 'up', '--stdio', server], {
        cwd: dir,
        env: { ...env(), BURROW_API_KEY: tunnel.key, BURROW_NO_TELEMETRY: '1' },
      })
      try {
        await cli.waitFor(/Tunnel online: +http:\/\/\S+\/mcp/)
      } finally {
        assert.equal(await cli.stop(), 0)
      }
      assert.doesNotMatch(cli.stderr, /Warning|ERROR/)
    })
  })
})
