/**
 * A node whose link to a peer's address was refused once links there again. The directory names
 * the holder by id and address; a node restarted at the same address has a new id, and until the
 * entries its previous run left expire, the other nodes present tokens for that id, which it
 * refuses (as a node still starting refuses every link). Before, the forwarding node kept the
 * refused handshake as its link to that address, and forwarded nothing there again.
 * Two burrowd nodes share PostgreSQL and Redis; the tunnel's client connects to node B, and the
 * agent's requests arrive at node A.
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { after, before, describe, it } from 'node:test'
import { Redis } from 'ioredis'
import {
  testBackends,
  type TestDatabase,
} from '../../packages/server/test/helpers/test-databases.js'
import { startChild, type Child } from '../helpers/child.js'
import { connectFake, type FakeClient } from '../helpers/fake-client.js'
import { freePort } from '../helpers/free-port.js'
import { publicFetch } from '../helpers/public-fetch.js'
import { BURROWD } from '../helpers/stack.js'

const run = promisify(execFile)
const postgres = testBackends().find((b) => b.name === 'postgres')
const redisUrl = process.env.TEST_REDIS_URL
const skip =
  postgres === undefined || !redisUrl ? 'needs TEST_DATABASE_URL and TEST_REDIS_URL' : false

describe('a node link refused once', { skip, timeout: 120_000 }, () => {
  let database: TestDatabase
  let dir: string
  const ports: number[] = []
  const procs: Child[] = []
  let tunnel: { id: string; key: string; subdomain: string }
  let client: FakeClient
  let redis: Redis

  before(async () => {
    database = await postgres!.create()
    dir = mkdtempSync(join(tmpdir(), 'burrow-link-refused-'))
    const env = {
      ...process.env,
      BURROW_DATABASE_URL: database.config.databaseUrl!,
      BURROW_REDIS_URL: redisUrl,
      BURROW_DATA_DIR: join(dir, 'operator'),
      BURROW_QUEUE_WAIT_MS: '300',
      BURROW_LOG: 'info',
    }
    const operator = async (args: string[]) =>
      JSON.parse((await run(process.execPath, [BURROWD, ...args], { env })).stdout) as typeof tunnel
    await operator(['account', 'create', '--email', 'acme@example.com', '--slug', 'acme', '--json'])
    tunnel = await operator([
      'tunnel',
      'create',
      '--account',
      'acme',
      '--access',
      'public',
      '--json',
    ])
    for (const name of ['a', 'b']) {
      const port = await freePort()
      ports.push(port)
      const proc = startChild(process.execPath, [BURROWD, 'serve'], {
        env: { ...env, BURROW_DATA_DIR: join(dir, name), BURROW_LISTEN: `127.0.0.1:${port}` },
      })
      procs.push(proc)
      await proc.waitFor(/burrowd listening/)
    }
    client = await connectFake(`ws://127.0.0.1:${ports[1]}`, tunnel.key)
    redis = new Redis(redisUrl!)
    for (let i = 0; !(await redis.hget(`burrow:dir:${tunnel.id}`, 'node')); i++) {
      assert.ok(i < 100, 'node B never claimed the tunnel')
      await new Promise((r) => setTimeout(r, 50))
    }
  })

  after(async () => {
    await client?.close().catch(() => {})
    redis?.disconnect()
    for (const p of procs) await p.stop()
    await database?.drop()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  const call = (id: number) =>
    publicFetch(`http://${tunnel.subdomain}--acme.localhost:${ports[0]}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list' }),
    })

  const served = async (id: number) => {
    const answer = call(id)
    const req = await client.nextRequest(8_000)
    req.replyJson(200, { jsonrpc: '2.0', id, result: { tools: [] } })
    return answer
  }

  it('forwards to the address again once the node there is the one the directory names', async () => {
    const key = `burrow:dir:${tunnel.id}`
    const nodeB = (await redis.hget(key, 'node'))!
    // The entry names an id node B does not have (a run of B before a restart, at the same
    // address): B refuses node A's link, whose token is for that id.
    await redis.hset(key, 'node', 'node_previous_run')
    const refused = await call(2)
    assert.equal(refused.status, 503, await refused.clone().text())
    assert.equal(((await refused.json()) as { id: unknown }).id, 2)
    await redis.hset(key, 'node', nodeB)
    const again = await served(3)
    assert.equal(again.status, 200, await again.text())
  })
})
