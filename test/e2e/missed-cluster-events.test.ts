/**
 * Two nodes whose Redis goes away while the owner rotates a tunnel's key on the node that does
 * not hold it: the `disconnect` event is lost (Redis pub/sub delivers at most once, and nothing
 * to a node that is not connected). Found by a hostile review: the client still running with the
 * old key stayed connected to the other node, and served the tunnel, for as long as it liked;
 * every other change an event carries is also re-read within seconds, but nothing read the key
 * again. Now the node holding a client checks its key against the database now and then, and
 * cuts off a client whose key was rotated or whose tunnel was deleted.
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { after, before, describe, it } from 'node:test'
import { testBackends } from '../../packages/server/test/helpers/test-databases.js'
import type { TestDatabase } from '../../packages/server/test/helpers/test-databases.js'
import { startChild, type Child } from '../helpers/child.js'
import { freePort } from '../helpers/free-port.js'
import { OwnRedis } from '../helpers/own-redis.js'
import { startCountingServer, type CountingServer } from '../helpers/quota-stack.js'
import { BURROW, BURROWD } from '../helpers/stack.js'

const run = promisify(execFile)
const postgres = testBackends().find((b) => b.name === 'postgres')

describe(
  'several nodes when a cluster event is lost',
  { skip: !postgres && 'needs TEST_DATABASE_URL', timeout: 240_000 },
  () => {
    let database: TestDatabase
    let dir: string
    let redis: OwnRedis
    const ports: number[] = []
    const nodes: Child[] = []
    let env: NodeJS.ProcessEnv
    let tunnel: { id: string; key: string; subdomain: string }
    let apiToken: string
    let client: Child
    let counting: CountingServer

    before(async () => {
      redis = await OwnRedis.start()
      database = await postgres!.create()
      dir = mkdtempSync(join(tmpdir(), 'burrow-missed-events-'))
      env = {
        ...process.env,
        BURROW_DATABASE_URL: database.config.databaseUrl!,
        BURROW_REDIS_URL: redis.url,
        BURROW_DATA_DIR: join(dir, 'operator'),
        BURROW_LOG: 'info',
      }
      const operator = async <T>(args: string[]) =>
        JSON.parse((await run(process.execPath, [BURROWD, ...args], { env })).stdout) as T
      await operator(['account', 'create', '--email', 'a@example.com', '--slug', 'acme', '--json'])
      tunnel = await operator([
        'tunnel',
        'create',
        '--account',
        'acme',
        '--access',
        'public',
        '--json',
      ])
      apiToken = (
        await operator<{ token: string }>(['token', 'create', '--account', 'acme', '--json'])
      ).token
      for (const name of ['a', 'b']) {
        const port = await freePort()
        ports.push(port)
        const node = startChild(process.execPath, [BURROWD, 'serve'], {
          env: { ...env, BURROW_DATA_DIR: join(dir, name), BURROW_LISTEN: `127.0.0.1:${port}` },
        })
        nodes.push(node)
        await node.waitFor(/burrowd listening/)
      }
      counting = await startCountingServer()
      client = startChild(
        process.execPath,
        [BURROW, '--broker', `ws://127.0.0.1:${ports[1]}`, 'up', '--upstream', counting.url],
        { env: { ...process.env, BURROW_API_KEY: tunnel.key, BURROW_LOG: 'info' } },
      )
      await client.waitFor(/Tunnel online/)
    })

    after(async () => {
      await client?.stop()
      await counting?.child.stop()
      for (const node of nodes) await node.stop()
      await redis?.kill()
      await database?.drop()
      if (dir) rmSync(dir, { recursive: true, force: true })
    })

    it('cuts off the old key’s client although the node holding it missed the rotation', async () => {
      await redis.kill()
      // On node A, which does not hold the tunnel: its event to node B goes nowhere.
      const rotated = await fetch(
        `http://127.0.0.1:${ports[0]}/api/tunnels/${tunnel.id}/rotate-key`,
        {
          method: 'POST',
          headers: { authorization: `Bearer ${apiToken}` },
        },
      )
      assert.equal(rotated.status, 200, await rotated.text())
      await redis.start()
      // Before, the client with the old key stayed connected to node B for good.
      await client.waitFor(/authentication failed/i, 90_000)
      assert.match(nodes[1]!.stderr, /disconnecting its client: the tunnel key was rotated/)
    })
  },
)
