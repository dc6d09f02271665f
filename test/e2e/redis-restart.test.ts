/**
 * Two nodes on a Redis that restarts empty, as deploy/compose.yaml's may, and one that stalls.
 * Found by a hostile review: every connected `burrow up` was told another client took its tunnel
 * and exited for good (the directory's lost entry read as a newer claim), every tunnel's month
 * started again at 0 and the next meter snapshot lowered the billed usage; and a stalled Redis
 * held every call for as long as it stalled. Now the holder writes its entry again, the month is
 * taken up from the last snapshot, and a stalled Redis fails calls with 503 and Retry-After.
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { promisify } from 'node:util'
import { after, before, describe, it } from 'node:test'
import pg from 'pg'
import {
  testBackends,
  type TestDatabase,
} from '../../packages/server/test/helpers/test-databases.js'
import { startChild, type Child } from '../helpers/child.js'
import { freePort } from '../helpers/free-port.js'
import { OwnRedis } from '../helpers/own-redis.js'
import { publicFetch } from '../helpers/public-fetch.js'
import { startCountingServer, type CountingServer } from '../helpers/quota-stack.js'
import { BURROW, BURROWD } from '../helpers/stack.js'

const run = promisify(execFile)
const postgres = testBackends().find((b) => b.name === 'postgres')
const CALL = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'echo', arguments: {} },
})

describe(
  'several nodes when Redis restarts empty or stalls',
  { skip: !postgres && 'needs TEST_DATABASE_URL', timeout: 240_000 },
  () => {
    let database: TestDatabase
    let dir: string
    let redis: OwnRedis
    const ports: number[] = []
    const nodes: Child[] = []
    let env: NodeJS.ProcessEnv
    let tunnel: { id: string; key: string; subdomain: string }
    let client: Child
    let counting: CountingServer

    const call = async (port: number) => {
      const res = await publicFetch(`http://${tunnel.subdomain}--acme.localhost:${port}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: CALL,
      })
      return {
        status: res.status,
        retryAfter: res.headers.get('retry-after'),
        text: await res.text(),
      }
    }
    const snapshotOf = async () => {
      const db = new pg.Client({ connectionString: database.config.databaseUrl! })
      await db.connect()
      try {
        const r = await db.query<{ value: string }>(
          "select value from usage_snapshots where tunnel_id = $1 and metric = 'tool_calls'",
          [tunnel.id],
        )
        return r.rows.map((row) => Number(row.value))
      } finally {
        await db.end()
      }
    }

    before(async () => {
      redis = await OwnRedis.start()
      database = await postgres!.create()
      dir = mkdtempSync(join(tmpdir(), 'burrow-redis-restart-'))
      env = {
        ...process.env,
        BURROW_DATABASE_URL: database.config.databaseUrl!,
        BURROW_REDIS_URL: redis.url,
        BURROW_DATA_DIR: join(dir, 'operator'),
        BURROW_LOG: 'info',
        BURROW_METER_SNAPSHOT_SECS: '1',
      }
      const operator = async (args: string[]) =>
        JSON.parse((await run(process.execPath, [BURROWD, ...args], { env })).stdout) as {
          id: string
          key: string
          subdomain: string
        }
      await operator([
        'account',
        'create',
        '--email',
        'acme@example.com',
        '--slug',
        'acme',
        '--json',
      ])
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
        const node = startChild(process.execPath, [BURROWD, 'serve'], {
          env: {
            ...env,
            BURROW_DATA_DIR: join(dir, name),
            BURROW_LISTEN: `127.0.0.1:${port}`,
          },
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
      redis?.resume()
      await client?.stop()
      await counting?.child.stop()
      for (const node of nodes) await node.stop()
      await redis?.kill()
      await database?.drop()
      if (dir) rmSync(dir, { recursive: true, force: true })
    })

    it('keeps the tunnel online and its used-up month used up across a restart', async () => {
      // Through node A to the client on node B, once the directory has it.
      for (let i = 0; (await call(ports[0]!)).status !== 200; i++) {
        assert.ok(i < 100, 'node A never reached the tunnel')
        await sleep(100)
      }
      await run(
        process.execPath,
        [BURROWD, 'usage', 'set', '--tunnel', tunnel.id, '--tool-calls', '100000'],
        { env },
      )
      assert.equal((await call(ports[0]!)).status, 429)
      // The meters have the month before Redis goes.
      for (let i = 0; !(await snapshotOf()).some((v) => v >= 100_000); i++) {
        assert.ok(i < 100, 'no snapshot of the used-up month')
        await sleep(100)
      }

      await redis.kill()
      await redis.start()

      // The holder writes its entry again at its next refresh; until then node A finds none.
      let after = await call(ports[0]!)
      for (let i = 0; after.status === 503; i++) {
        assert.ok(i < 300, `node A never found the tunnel again: ${after.text}`)
        await sleep(100)
        after = await call(ports[0]!)
      }
      assert.equal(after.status, 429, `the month was taken up again: ${after.text}`)
      assert.equal((await call(ports[1]!)).status, 429)
      assert.equal(client.proc.exitCode, null, `burrow up exited:\n${client.stderr}`)
      assert.doesNotMatch(client.stdout + client.stderr, /took over/)
      assert.match(nodes[1]!.stderr, /the directory had lost tunnel .*; written again/)
      await sleep(2_500)
      assert.ok(
        (await snapshotOf()).every((v) => v >= 100_000),
        'the meters were not lowered',
      )
    })

    it('fails calls with 503 while Redis stalls, and serves them again after', async () => {
      redis.stall()
      try {
        // Before, the call waited for Redis to come back (and then got its 429).
        const stalled = await call(ports[0]!)
        assert.equal(stalled.status, 503, stalled.text)
        assert.match(stalled.text, /cannot reach the state its nodes share \(Redis\)/)
        // With the call's id: the agent's SDK matches the error instead of waiting it out.
        assert.match(stalled.text, /"id":1,/)
        assert.equal(stalled.retryAfter, '5')
      } finally {
        redis.resume()
      }
      let again = await call(ports[0]!)
      for (let i = 0; again.status === 503; i++) {
        assert.ok(i < 100, again.text)
        await sleep(100)
        again = await call(ports[0]!)
      }
      assert.equal(again.status, 429)
    })
  },
)
