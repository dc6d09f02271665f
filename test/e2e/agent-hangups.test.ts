/**
 * An agent that hangs up while its 2026-07-28 request is being admitted leaves no session place
 * behind (found by a hostile review: with Redis, a place taken after the agent's socket closed
 * was renewed for as long as burrowd ran, and a thousand such requests locked every new session
 * out). Real burrowd, a scripted tunnel client, raw sockets as the hostile agent.
 */
import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { after, before, describe, it } from 'node:test'
import { Redis } from 'ioredis'
import { connectFake, type FakeClient } from '../helpers/fake-client.js'
import { startService, type Service } from '../helpers/stack.js'
import { hostOf, postJson } from '../../packages/server/test/helpers/edge-request.js'

const MODERN = '2026-07-28'
const modernCall = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: {
    name: 'echo',
    arguments: {},
    _meta: {
      'io.modelcontextprotocol/protocolVersion': MODERN,
      'io.modelcontextprotocol/clientInfo': { name: 'hostile', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': {},
    },
  },
})

/** Send one whole request and hang up `delayMs` after writing it (never reading the answer). */
function sendAndHangUp(port: number, host: string, id: number, delayMs: number): Promise<void> {
  const body = JSON.stringify(modernCall(id))
  const head =
    `POST /mcp HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\n` +
    `Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: ${MODERN}\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n`
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(head + body)
      const bye = () => {
        socket.destroy()
        resolve()
      }
      if (delayMs === 0) setImmediate(bye)
      else setTimeout(bye, delayMs)
    })
    socket.on('error', () => resolve())
  })
}

const BACKENDS: readonly { readonly name: string; readonly env: NodeJS.ProcessEnv }[] = [
  { name: 'in process', env: {} },
  ...(process.env.TEST_REDIS_URL
    ? [{ name: 'Redis', env: { BURROW_REDIS_URL: process.env.TEST_REDIS_URL } }]
    : []),
]

for (const backend of BACKENDS)
  describe(`sessionless places of agents that hang up (${backend.name})`, () => {
    let service: Service
    let client: FakeClient
    let host: string
    let tunnelId: string
    let answering = true

    before(async () => {
      service = await startService({ BURROW_LOG: 'info', ...backend.env })
      const tunnel = await service.tunnel('hangups')
      host = hostOf(tunnel.publicUrl)
      tunnelId = tunnel.id
      client = await connectFake(service.broker, tunnel.key)
      // The local server answers every call at once.
      void (async () => {
        while (answering) {
          const req = await client.nextRequest(60_000).catch(() => null)
          if (req === null) continue
          req.body
            .then((b) => {
              const id = (JSON.parse(b.toString()) as { id: number }).id
              req.replyJson(200, { jsonrpc: '2.0', id, result: { content: [] } })
            })
            .catch(() => {})
        }
      })()
    })

    after(async () => {
      answering = false
      await client?.close()
      await service?.close()
    })

    it('gives back the place of every 2026-07-28 request whose agent hung up', async () => {
      // A hostile agent sweeps the delay between its write and its hang-up, so that some land
      // while admission awaits.
      const redis = backend.env.BURROW_REDIS_URL ? new Redis(backend.env.BURROW_REDIS_URL) : null
      const places = async () => (redis === null ? 0 : await redis.zcard(`burrow:s:${tunnelId}`))
      try {
        for (let round = 0; round < 60; round++) {
          await Promise.all(
            Array.from({ length: 20 }, (_, i) =>
              sendAndHangUp(service.port, host, i, (i + round) % 6),
            ),
          )
          await sleep(100)
        }
        // Every place comes back once its answer or hang-up is handled: waited for, not a pause
        // guessed (2 s did not do on a busy machine).
        for (let i = 0; i < 300 && (await places()) > 0; i++) await sleep(100)
        if (redis !== null) {
          assert.equal(
            await places(),
            0,
            `places held after every agent hung up and was answered: ${(await redis.zrange(`burrow:s:${tunnelId}`, 0, -1)).join(', ')}`,
          )
        }
      } finally {
        redis?.disconnect()
      }
      // A legitimate 2026-07-28 agent, long after every hostile socket is gone. On a busy machine
      // burrowd may still be reading the last hostile requests when the places first read 0 (one
      // such run got 429): each takes a place for as long as it is handled. A place leaked is held
      // for the 60 s lease at least, and renewed while burrowd believes it in flight, so 30 s of
      // retries still catch one.
      let answer = await postJson(service.port, host, modernCall(7), {
        'mcp-protocol-version': MODERN,
      })
      for (let i = 0; i < 300 && answer.status === 429; i++) {
        await sleep(100)
        answer = await postJson(service.port, host, modernCall(7), {
          'mcp-protocol-version': MODERN,
        })
      }
      assert.equal(
        answer.status,
        200,
        `a place is held by a request whose agent left long ago: ${answer.status} ${answer.text}`,
      )
    })
  })
