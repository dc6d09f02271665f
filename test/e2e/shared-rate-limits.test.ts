/**
 * Rate limits across two nodes sharing PostgreSQL and Redis: a stranger whose sign-in attempts a
 * load balancer spreads over both nodes gets one limit, not one per node. Before, each node kept
 * its own buckets, so guesses at a password (10 attempts a minute per address, 10 failures per
 * 15 minutes per account) went N times as fast behind N nodes.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { Redis } from 'ioredis'
import { testBackends } from '../../packages/server/test/helpers/test-databases.js'
import type { TestDatabase } from '../../packages/server/test/helpers/test-databases.js'
import { startChild, type Child } from '../helpers/child.js'
import { freePort } from '../helpers/free-port.js'
import { OwnRedis } from '../helpers/own-redis.js'
import { BURROWD } from '../helpers/stack.js'
import { signUp } from '../helpers/web-client.js'

const postgres = testBackends().find((b) => b.name === 'postgres')

/** One sign-in through the form at `base`: the answer's status and text. */
async function trySignIn(base: string, email: string, password: string) {
  const formPage = await fetch(`${base}/signin`)
  const formCookie = (
    formPage.headers.getSetCookie().find((c) => c.startsWith('burrow_form=')) ?? ''
  ).split(';')[0]!
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await formPage.text())?.[1] ?? ''
  const res = await fetch(`${base}/signin`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: formCookie },
    body: new URLSearchParams({ _csrf: csrf, email, password }),
  })
  return { status: res.status, text: await res.text() }
}

describe(
  'rate limits shared by several nodes',
  { skip: !postgres && 'needs TEST_DATABASE_URL', timeout: 120_000 },
  () => {
    let database: TestDatabase
    let dir: string
    let redis: OwnRedis
    let watcher: Redis
    /** Sign-in attempts the nodes told each other of, as the test's own subscriber saw them. */
    let spends = 0
    const bases: string[] = []
    const nodes: Child[] = []

    /**
     * Wait until the nodes have told each other of `count` attempts in all (for at most 10 s: a
     * build that tells nothing then fails on what it answers).
     */
    const told = async (count: number) => {
      for (let i = 0; i < 1000 && spends < count; i++) await new Promise((r) => setTimeout(r, 10))
    }

    before(async () => {
      redis = await OwnRedis.start()
      database = await postgres!.create()
      dir = mkdtempSync(join(tmpdir(), 'burrow-shared-limits-'))
      watcher = new Redis(redis.url)
      watcher.on('message', (_channel: string, text: string) => {
        const { event } = JSON.parse(text) as { event?: { type?: string; limit?: string } }
        if (event?.type === 'spent' && event.limit === 'sign-in.address') spends++
      })
      await watcher.subscribe('burrow:events')
      for (const name of ['a', 'b']) {
        const port = await freePort()
        const node = startChild(process.execPath, [BURROWD, 'serve'], {
          env: {
            ...process.env,
            BURROW_DATABASE_URL: database.config.databaseUrl!,
            BURROW_REDIS_URL: redis.url,
            BURROW_DATA_DIR: join(dir, name),
            BURROW_LISTEN: `127.0.0.1:${port}`,
            BURROW_LOG: 'info',
          },
        })
        nodes.push(node)
        // Printed once the node hears the others' events (docs/decisions.md, "A starting node
        // waits at most 5 s for the cluster events"): the attempts can start then.
        await node.waitFor(/burrowd listening/)
        bases.push(`http://127.0.0.1:${port}`)
      }
    })

    after(async () => {
      watcher?.disconnect()
      for (const node of nodes) await node.stop()
      await redis?.kill()
      await database?.drop()
      if (dir) rmSync(dir, { recursive: true, force: true })
    })

    it('counts sign-in attempts made on either node against one limit per address', async () => {
      // The sign-up is the address's first attempt (10 a minute), on node A.
      await signUp(bases[0]!, 'owner', 'the right password')
      await told(1)
      // Nine wrong passwords, alternating between the nodes: five on B, four on A.
      for (let i = 0; i < 9; i++) {
        const base = bases[(i + 1) % 2]!
        const wrong = await trySignIn(base, 'owner@example.com', `guess ${i}`)
        assert.equal(wrong.status, 401, `attempt ${i + 2} on node ${base}: ${wrong.text}`)
        await told(i + 2)
      }
      // The eleventh attempt: node B has seen only five of its own, but the address has spent ten.
      const refused = await trySignIn(bases[1]!, 'owner@example.com', 'the right password')
      assert.equal(refused.status, 429, refused.text)
      assert.match(refused.text, /Too many attempts/)
      // And on node A alike.
      const alsoRefused = await trySignIn(bases[0]!, 'owner@example.com', 'the right password')
      assert.equal(alsoRefused.status, 429, alsoRefused.text)
    })
  },
)
