/**
 * A hostile tunnel client that sends its answer one byte per DATA frame (found by a hostile
 * review). Credit and the edge's budgets count bytes; each frame the edge kept cost it a Buffer
 * view (and the socket read it points into), and each one written to an agent that does not read
 * cost Node's write queue several entries. A few hundred MB sent so held GBs in burrowd, and ended
 * it (out of memory) for every tenant. Memory held must stay proportional to the bytes counted.
 * The bounds below are far above what the fixed edge grows by (about 22 and 6 MB here) and far
 * below what it grew by before (840 and 280 MB), so that other work on the machine cannot tip
 * them. The SSE parser's share is counted in its own unit test (`sse-parser.test.ts`).
 */
import assert from 'node:assert/strict'
import { connect, type Socket } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { INITIAL_CONNECTION_WINDOW } from '@burrow/protocol'
import type { WebSocket } from 'ws'
import { FragmentingClient } from '../helpers/fragmenting-client.js'
import { startService, type Service } from '../helpers/stack.js'
import { rssOf } from '../helpers/rss.js'
import { hostOf, openRequest } from '../../packages/server/test/helpers/edge-request.js'

const CALL =
  '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{}}}'

/** Bytes sent one per frame, in each case. */
const BYTES = 3 * 1024 * 1024

async function grownMb(pid: number, before: number): Promise<number> {
  await new Promise((r) => setTimeout(r, 1500))
  return Math.round(((rssOf(pid) ?? 0) - before) / 1048576)
}

describe('a tunnel client answering one byte per frame', { timeout: 170_000 }, () => {
  let service: Service
  let tunnel: { key: string; publicUrl: string }
  const clients: WebSocket[] = []
  const sockets: Socket[] = []

  before(async () => {
    service = await startService({ BURROW_LOG: 'info' }, { plan: 'free' })
    tunnel = await service.tunnel('fragments')
  })

  /** A new connection of the tunnel's key (the one before goes). */
  const client = async (): Promise<FragmentingClient> => {
    for (const c of clients) c.terminate()
    const c = new FragmentingClient(service.broker, tunnel.key)
    clients.push(c.ws)
    await c.hello()
    return c
  }

  after(async () => {
    for (const c of clients) c.terminate()
    for (const s of sockets) s.destroy()
    await service?.close()
  })

  it('does not make the edge hold a Buffer per frame of a JSON answer it taps', async () => {
    const c = await client()
    const pid = service.proc.proc.pid!
    const before = rssOf(pid) ?? 0
    const opened = c.nextOpen()
    const call = openRequest(service.port, hostOf(tunnel.publicUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: CALL,
    })
    call.req.on('response', (res) => res.resume())
    c.respond(await opened, 200, 'application/json')
    const sent = await c.dribble(BYTES)
    const grown = await grownMb(pid, before)
    call.req.destroy()
    assert.equal(sent, BYTES, 'the edge read the answer as it came')
    assert.ok(
      grown < 256,
      `burrowd grew by ${grown} MB holding a ${BYTES >> 20} MiB answer sent one byte per frame`,
    )
  })

  it('does not queue a write per frame to an agent that does not read', async () => {
    const c = await client()
    const pid = service.proc.proc.pid!
    const before = rssOf(pid) ?? 0
    const opened = c.nextOpen()
    // An agent that sends its request and never reads a byte of the answer.
    const agent = connect(service.port, '127.0.0.1')
    sockets.push(agent)
    agent.write(`GET /mcp HTTP/1.1\r\nHost: ${hostOf(tunnel.publicUrl)}\r\nAccept: */*\r\n\r\n`)
    agent.pause()
    c.respond(await opened, 500, 'text/plain')
    const sent = await c.dribble(INITIAL_CONNECTION_WINDOW)
    const grown = await grownMb(pid, before)
    assert.ok(sent > 0)
    assert.ok(
      grown < 160,
      `burrowd grew by ${grown} MB for ${sent} bytes sent one per frame to an agent that does not read`,
    )
  })
})
