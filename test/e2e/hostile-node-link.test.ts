/**
 * Hostile tenants against the link between two nodes. Two burrowd nodes share PostgreSQL and a
 * Redis of the test's own; the tunnels' clients connect to node B and the agents' requests
 * arrive at node A, which forwards them over its one link to B.
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { connect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { after, before, describe, it } from 'node:test'
import type { MuxStream } from '@burrow/protocol'
import {
  testBackends,
  type TestDatabase,
} from '../../packages/server/test/helpers/test-databases.js'
import { startChild, type Child } from '../helpers/child.js'
import { connectFake, type FakeClient } from '../helpers/fake-client.js'
import { freePort } from '../helpers/free-port.js'
import { OwnRedis } from '../helpers/own-redis.js'
import { publicFetch } from '../helpers/public-fetch.js'
import { BURROWD } from '../helpers/stack.js'

const run = promisify(execFile)
const postgres = testBackends().find((b) => b.name === 'postgres')
const skip = postgres === undefined ? 'needs TEST_DATABASE_URL and redis-server' : false

interface Made {
  readonly id: string
  readonly key: string
  readonly subdomain: string
}

/** A stream written to without end, as fast as its credit allows. */
interface Flood {
  /** Whether its last write had to wait. */
  readonly blocked: () => boolean
}

/** Write to `stream` without end; `drained` is called each time it may go on. */
function flood(stream: MuxStream, drained: () => void): Flood {
  const chunk = Buffer.alloc(64 * 1024, 0x61)
  let blocked = false
  const pump = () => {
    blocked = false
    while (!stream.closed) {
      if (!stream.write(chunk)) {
        blocked = true
        return
      }
    }
  }
  stream.onDrain = () => {
    drained()
    pump()
  }
  pump()
  return { blocked: () => blocked }
}

describe('hostile tenants on the link between nodes', { skip, timeout: 180_000 }, () => {
  let database: TestDatabase
  let redis: OwnRedis
  let dir: string
  const ports: number[] = []
  const procs: Child[] = []
  let env: NodeJS.ProcessEnv
  let mallory: Made
  let victim: Made
  let malloryClient: FakeClient
  let victimClient: FakeClient
  const sockets: Socket[] = []

  const operator = async (args: string[]) =>
    JSON.parse((await run(process.execPath, [BURROWD, ...args], { env })).stdout) as Made

  before(async () => {
    database = await postgres!.create()
    redis = await OwnRedis.start()
    dir = mkdtempSync(join(tmpdir(), 'burrow-node-link-'))
    env = {
      ...process.env,
      BURROW_DATABASE_URL: database.config.databaseUrl!,
      BURROW_REDIS_URL: redis.url,
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
      'public',
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
  })

  after(async () => {
    for (const s of sockets) s.destroy()
    await malloryClient?.close().catch(() => {})
    await victimClient?.close().catch(() => {})
    for (const p of procs) await p.stop()
    await redis?.kill()
    await database?.drop()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  /** A call to `tunnel` through node A, the agent's socket never read. */
  const unreadCall = (tunnel: Made, slug: string, id: number) => {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'x', arguments: {} },
    })
    const socket = connect(ports[0]!, '127.0.0.1')
    socket.pause()
    sockets.push(socket)
    socket.write(
      [
        'POST /mcp HTTP/1.1',
        `Host: ${tunnel.subdomain}--${slug}.localhost:${ports[0]}`,
        'Content-Type: application/json',
        'Accept: application/json, text/event-stream',
        'Mcp-Session-Id: slow-session',
        `Content-Length: ${Buffer.byteLength(body)}`,
        '',
        body,
      ].join('\r\n'),
    )
  }

  /** A call to the victim's tunnel through node A, answered with 512 KiB: its answer's length. */
  const victimCall = async () => {
    const answer = publicFetch(`http://${victim.subdomain}--acme.localhost:${ports[0]}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    })
    const req = await victimClient.nextRequest(20_000)
    const pad = 'x'.repeat(512 * 1024)
    req.stream.respond({ status: 200, headers: [['content-type', 'application/json']] })
    req.stream.write(
      Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { tools: [], pad } })),
    )
    req.stream.end()
    const res = await answer
    assert.equal(res.status, 200)
    return ((await res.json()) as { result: { pad: string } }).result.pad.length
  }

  it("one tenant's unread answers do not stall another tenant's answers across the link", async () => {
    // 80 calls whose agent never reads, each answered without end: their unread bytes on the
    // link are at least 80 initial stream windows (20 MiB), more than a connection's window.
    const calls = 80
    for (let i = 0; i < calls; i++) unreadCall(mallory, 'mallory', i + 1)
    let drains = 0
    const floods: Flood[] = []
    for (let i = 0; i < calls; i++) {
      const req = await malloryClient.nextRequest(20_000)
      req.stream.respond({ status: 200, headers: [['content-type', 'application/octet-stream']] })
      floods.push(flood(req.stream, () => (drains += 1)))
    }
    // The victim's calls go on while mallory's answers fill what their readers leave unread,
    // until mallory's answers are all held up and none moved while a victim's call was answered.
    for (;;) {
      const before = drains
      assert.equal(await victimCall(), 512 * 1024)
      if (drains === before && floods.every((f) => f.blocked())) break
    }
  })
})
