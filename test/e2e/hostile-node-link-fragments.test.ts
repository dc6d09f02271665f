/**
 * A hostile tunnel client that sends its answers one byte per DATA frame, to agents that reached
 * another node and do not read. Two burrowd nodes share PostgreSQL and a Redis of the test's own;
 * the client connects to node B and the agents' requests arrive at node A, so B relays each
 * answer over the node link. What A does not take waits in the link stream's send queue in B,
 * up to the credit the client was given (4 MiB a stream); kept as the frames they came in, the
 * bytes cost B a Buffer each (and the socket read it points into). Memory held must stay
 * proportional to the bytes the streams' credit counts.
 *
 * Measured here for three answers (6 MiB of each sent in large frames, then 2 MiB one byte per
 * frame): B grew by 7 to 12 MB and A by nothing with the queue's small pieces copied together;
 * before, B grew by 745 to 755 MB (A by nothing). The bound (160 MB for each) is far from both,
 * so that other work on the machine cannot tip it.
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { connect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { after, before, describe, it } from 'node:test'
import { INITIAL_STREAM_WINDOW } from '@burrow/protocol'
import {
  testBackends,
  type TestDatabase,
} from '../../packages/server/test/helpers/test-databases.js'
import { startChild, type Child } from '../helpers/child.js'
import { FragmentingClient } from '../helpers/fragmenting-client.js'
import { freePort } from '../helpers/free-port.js'
import { OwnRedis } from '../helpers/own-redis.js'
import { rssOf } from '../helpers/rss.js'
import { BURROWD } from '../helpers/stack.js'

const run = promisify(execFile)
const postgres = testBackends().find((b) => b.name === 'postgres')
const skip = postgres === undefined ? 'needs TEST_DATABASE_URL and redis-server' : false

/** Agents that do not read, each with an answer of its own. */
const STREAMS = 3

/** Bytes each answer may carry (its credit stops it first). */
const BYTES = 64 * 1024 * 1024

/** Credit each answer keeps for its bytes sent one per frame: half of the largest window. */
const KEPT_CREDIT = 2 * 1024 * 1024

/** Bytes of the answer read as fast as it comes. */
const WARM_UP = 16 * 1024 * 1024

/** RSS of `pid` in MB, once what came settled. */
async function rssMb(pid: number): Promise<number> {
  await new Promise((r) => setTimeout(r, 1500))
  return Math.round((rssOf(pid) ?? 0) / 1048576)
}

describe('one-byte answer frames relayed across the node link', { skip, timeout: 170_000 }, () => {
  let database: TestDatabase
  let redis: OwnRedis
  let dir: string
  const ports: number[] = []
  const procs: Child[] = []
  let tunnel: { key: string; subdomain: string }
  let client: FragmentingClient
  const sockets: Socket[] = []

  before(async () => {
    database = await postgres!.create()
    redis = await OwnRedis.start()
    dir = mkdtempSync(join(tmpdir(), 'burrow-link-fragments-'))
    const env = {
      ...process.env,
      BURROW_DATABASE_URL: database.config.databaseUrl!,
      BURROW_REDIS_URL: redis.url,
      BURROW_DATA_DIR: join(dir, 'operator'),
      BURROW_LOG: 'info',
    }
    const operator = async (args: string[]) =>
      JSON.parse((await run(process.execPath, [BURROWD, ...args], { env })).stdout) as {
        key: string
        subdomain: string
      }
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
    for (const name of ['a', 'b']) {
      const port = await freePort()
      ports.push(port)
      const proc = startChild(process.execPath, [BURROWD, 'serve'], {
        env: { ...env, BURROW_DATA_DIR: join(dir, name), BURROW_LISTEN: `127.0.0.1:${port}` },
      })
      procs.push(proc)
      await proc.waitFor(/burrowd listening/)
    }
    client = new FragmentingClient(`ws://127.0.0.1:${ports[1]}`, tunnel.key)
    await client.hello()
  })

  after(async () => {
    for (const s of sockets) s.destroy()
    client?.ws.terminate()
    for (const p of procs) await p.stop()
    await redis?.kill()
    await database?.drop()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  /**
   * A call from an agent at `port`, answered by the client: its stream, and (when the agent
   * `reads`) the end of the answer at the agent; otherwise the agent never reads a byte.
   */
  const call = async (
    port: number,
    reads: boolean,
  ): Promise<{ id: number; read: Promise<void> }> => {
    const agent = connect(port, '127.0.0.1')
    sockets.push(agent)
    agent.write(
      `GET /mcp HTTP/1.1\r\nHost: ${tunnel.subdomain}--acme.localhost:${port}\r\nAccept: */*\r\n\r\n`,
    )
    let read = Promise.resolve()
    if (reads) {
      let tail = ''
      read = new Promise((resolve) =>
        agent.on('data', (data: Buffer) => {
          tail = (tail + data.toString('latin1')).slice(-5)
          if (tail === '0\r\n\r\n') resolve()
        }),
      )
    } else agent.pause()
    const id = await client.nextOpen()
    client.respond(id, 500, 'text/plain')
    return { id, read }
  }

  it('does not make the relaying node hold a Buffer per frame for agents that do not read', async () => {
    // First an answer an agent at node B reads as fast as it comes: the tunnel connection's
    // streams earn their largest window (4 MiB), which the answers below are given at once.
    // The link's streams keep theirs (256 KiB): what A does not take waits in B.
    const fast = await call(ports[1]!, true)
    assert.equal(await client.pour(WARM_UP, fast.id), WARM_UP)
    client.end(fast.id)
    await fast.read
    const streams: number[] = []
    for (let i = 0; i < STREAMS; i++) streams.push((await call(ports[0]!, false)).id)
    // Each answer fills in large frames what the agent's connection, node A and the link take
    // (megabytes of socket buffers), keeping half of its window for what follows.
    // (Half an initial window first: the stream's window grows to the largest once it was read.)
    for (const id of streams) await client.pour(INITIAL_STREAM_WINDOW / 2, id)
    const poured = await Promise.all(streams.map((id) => client.pour(BYTES, id, KEPT_CREDIT)))
    const [a, b] = procs.map((p) => p.proc.pid!) as [number, number]
    const beforeA = await rssMb(a)
    const beforeB = await rssMb(b)
    const sent = await Promise.all(streams.map((id) => client.dribble(BYTES, id)))
    const grownA = (await rssMb(a)) - beforeA
    const grownB = (await rssMb(b)) - beforeB
    const total = sent.reduce((x, y) => x + y, 0)
    assert.ok(
      sent.every((n) => n >= KEPT_CREDIT / 2),
      `each answer sent the credit it kept (${sent.join(', ')} bytes sent)`,
    )
    assert.ok(
      grownB < 160,
      `the relaying node grew by ${grownB} MB for ${total} bytes sent one per frame (and ${poured.join(', ')} in large frames)`,
    )
    assert.ok(
      grownA < 160,
      `the agents' node grew by ${grownA} MB for ${total} bytes sent one per frame`,
    )
  })
})
