/**
 * Burrow on the newer Node releases it supports (22, the deploy image's, and 24): burrowd and
 * `burrow up`, both run by that release, serve an official SDK agent through a stdio and an HTTP
 * upstream, and the dashboard answers. The suite's other tests run everything on the machine's
 * own Node; without this one nothing said that a newer release still works.
 *
 * burrowd runs on PostgreSQL here: the machine's better-sqlite3 is built for the machine's Node,
 * and a release of another ABI cannot load it (the deploy image builds it for its own).
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { promisify } from 'node:util'
import { testBackends } from '../../packages/server/test/helpers/test-databases.js'
import type { TestDatabase } from '../../packages/server/test/helpers/test-databases.js'
import { connectAgent, exerciseEverything, firstText } from '../helpers/agent-scenario.js'
import { startChild, type Child } from '../helpers/child.js'
import { freePort } from '../helpers/free-port.js'
import { nodeRelease } from '../helpers/node-release.js'
import { BURROW, BURROWD, EVERYTHING } from '../helpers/stack.js'

const run = promisify(execFile)
const postgres = testBackends().find((b) => b.name === 'postgres')

for (const major of [22, 24]) {
  describe(
    `burrowd and burrow up on Node ${major}`,
    { skip: !postgres && 'needs TEST_DATABASE_URL', timeout: 600_000 },
    () => {
      let node: string
      let database: TestDatabase
      let dir: string
      let port: number
      let env: NodeJS.ProcessEnv
      const children: Child[] = []

      /** `burrowd tunnel create` on this release: the tunnel's key and public /mcp URL. */
      const tunnel = async (name: string) => {
        const args = [BURROWD, 'tunnel', 'create', '--account', 'acme', '--name', name]
        const { stdout } = await run(node, [...args, '--access', 'public', '--json'], { env })
        const made = JSON.parse(stdout) as { key: string; public_url: string }
        return { key: made.key, url: `${made.public_url}/mcp` }
      }

      /** `burrow up` on this release with `upArgs`, online. */
      const up = async (key: string, upArgs: readonly string[]) => {
        const cli = startChild(
          node,
          [BURROW, '--broker', `ws://127.0.0.1:${port}`, 'up', ...upArgs],
          {
            env: { ...process.env, BURROW_API_KEY: key },
          },
        )
        children.push(cli)
        await cli.waitFor(/Tunnel online/, 30_000)
        return cli
      }

      before(async () => {
        node = await nodeRelease(major)
        database = await postgres!.create()
        dir = mkdtempSync(join(tmpdir(), `burrow-node${major}-`))
        port = await freePort()
        env = {
          ...process.env,
          BURROW_DATABASE_URL: database.config.databaseUrl!,
          BURROW_DATA_DIR: dir,
          BURROW_LISTEN: `127.0.0.1:${port}`,
          BURROW_LOG: 'info',
        }
        await run(
          node,
          [BURROWD, 'account', 'create', '--email', 'new@example.com', '--slug', 'acme', '--json'],
          { env },
        )
        const service = startChild(node, [BURROWD, 'serve'], { env })
        children.push(service)
        await service.waitFor(/burrowd listening/, 30_000)
      })

      after(async () => {
        for (const child of children.reverse()) await child.stop()
        await database?.drop()
        if (dir) rmSync(dir, { recursive: true, force: true })
      })

      it(`reports Node ${major} as the release it runs on`, async () => {
        const { stdout } = await run(node, ['-p', 'process.versions.node'])
        assert.match(stdout, new RegExp(`^${major}\\.`))
        const version = await run(node, [BURROW, '--version'])
        assert.match(version.stdout, /\d+\.\d+\.\d+/)
      })

      it('serves an SDK agent through a stdio upstream', async () => {
        const { key, url } = await tunnel('stdio')
        await up(key, ['--stdio', `"${process.execPath}" "${EVERYTHING}"`])
        const { client, transport } = await connectAgent(url)
        await exerciseEverything(client)
        await transport.terminateSession()
        await client.close()
      })

      it('serves an SDK agent through an HTTP upstream', async () => {
        const upstreamPort = await freePort()
        const upstream = startChild(process.execPath, [EVERYTHING, 'streamableHttp'], {
          env: { ...process.env, PORT: String(upstreamPort) },
        })
        children.push(upstream)
        await upstream.waitFor(/listening|port/i)
        const { key, url } = await tunnel('http')
        await up(key, ['--upstream', `http://127.0.0.1:${upstreamPort}/mcp`])
        const { client } = await connectAgent(url)
        const echoed = await client.callTool({ name: 'echo', arguments: { message: 'newer' } })
        assert.equal(firstText(echoed), 'Echo: newer')
        await client.close()
      })

      it('answers the dashboard and the JSON API', async () => {
        const signIn = await fetch(`http://127.0.0.1:${port}/signin`)
        assert.equal(signIn.status, 200)
        assert.match(await signIn.text(), /<form/)
        const api = await fetch(`http://127.0.0.1:${port}/api/tunnels`)
        assert.equal(api.status, 401)
      })

      it("prints none of Node's warnings (deprecations and the like)", () => {
        for (const child of children) {
          assert.doesNotMatch(
            child.stderr,
            /\(node:\d+\) .*Warning/,
            child.proc.spawnargs.join(' '),
          )
        }
      })
    },
  )
}
