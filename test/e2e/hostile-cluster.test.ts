/**
 * Hostile traffic against several nodes: what one node trusts in what another node forwards.
 * Two burrowd nodes share PostgreSQL and Redis; the tunnels' clients connect to node B, and
 * the agent's requests arrive at node A, which forwards them over its node link.
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

interface Made {
  readonly id: string
  readonly key: string
  readonly subdomain: string
}

describe('hostile traffic between nodes', { skip, timeout: 120_000 }, () => {
  let database: TestDatabase
  let dir: string
  const ports: number[] = []
  const procs: Child[] = []
  let env: NodeJS.ProcessEnv
  let mallory: Made
  let victim: Made
  let malloryClient: FakeClient
  let victimClient: FakeClient
  let redis: Redis

  const operator = async (args: string[]) =>
    JSON.parse((await run(process.execPath, [BURROWD, ...args], { env })).stdout) as Made

  before(async () => {
    database = await postgres!.create()
    dir = mkdtempSync(join(tmpdir(), 'burrow-hostile-nodes-'))
    env = {
      ...process.env,
      BURROW_DATABASE_URL: database.config.databaseUrl!,
      BURROW_REDIS_URL: redisUrl,
      BURROW_DATA_DIR: join(dir, 'operator'),
      BURROW_LOG: 'info',
    }
    for (const slug of ['acme', 'mallory']) {
      await operator([
        'account',
        'create',
        '--email',
        `${slug}@example.com`,
        '--slug',
        slug,
        '--json',
      ])
    }
    victim = await operator([
      'tunnel',
      'create',
      '--account',
      'acme',
      '--access',
      'oauth',
      '--json',
    ])
    mallory = await operator([
      'tunnel',
      'create',
      '--account',
      'mallory',
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
    victimClient = await connectFake(`ws://127.0.0.1:${ports[1]}`, victim.key)
    malloryClient = await connectFake(`ws://127.0.0.1:${ports[1]}`, mallory.key)
    redis = new Redis(redisUrl!)
    for (let i = 0; i < 50; i++) {
      const [v, m] = await Promise.all([
        redis.hget(`burrow:dir:${victim.id}`, 'epoch'),
        redis.hget(`burrow:dir:${mallory.id}`, 'epoch'),
      ])
      if (v && m) break
      await new Promise((r) => setTimeout(r, 100))
    }
  })

  after(async () => {
    await malloryClient?.close().catch(() => {})
    await victimClient?.close().catch(() => {})
    redis?.disconnect()
    for (const p of procs) await p.stop()
    await database?.drop()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('an agent cannot name another tunnel in the header nodes use between them', async () => {
    const epoch = await redis.hget(`burrow:dir:${victim.id}`, 'epoch')
    assert.ok(epoch, 'the victim tunnel is in the directory')
    const answer = publicFetch(`http://${mallory.subdomain}--mallory.localhost:${ports[0]}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'x-burrow-node-tunnel': `${victim.id}.${epoch}`,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    })
    const reached = await Promise.race([
      victimClient.nextRequest(8_000).then((req) => {
        req.replyJson(200, {
          jsonrpc: '2.0',
          id: 1,
          result: { tools: [{ name: 'victim_secret' }] },
        })
        return 'victim' as const
      }),
      malloryClient.nextRequest(8_000).then((req) => {
        assert.deepEqual(
          req.headerValues('x-burrow-node-tunnel'),
          [],
          'the node header is not forwarded',
        )
        req.replyJson(200, { jsonrpc: '2.0', id: 1, result: { tools: [] } })
        return 'mallory' as const
      }),
    ])
    const res = await answer
    const text = await res.text()
    assert.equal(reached, 'mallory', `the request reached ${reached}'s client; answer: ${text}`)
    assert.doesNotMatch(text, /victim_secret/)
  })
})
