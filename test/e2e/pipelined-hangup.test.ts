/**
 * An agent that pipelines calls behind an answer that does not end (a GET stream) and hangs up
 * leaves nothing held: the pipelined calls never ran, so they hold no session place, no body
 * budget, no tunnel stream. Found by a hostile review: Node ran each pipelined request at once,
 * and those whose answers were still queued when the client hung up never emitted `close`, so a
 * stranger with one connection kept every new agent out of a Free tunnel (`429 session_limit`)
 * until burrowd restarted, or every call of it (the tunnel's body budget). Real burrowd and
 * `burrow up` in front of the counting MCP server, the pipelined requests written on a raw socket.
 */
import assert from 'node:assert/strict'
import { connect, type Socket } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { type Child } from '../helpers/child.js'
import {
  initializeMessage,
  openSession,
  postMcp,
  startCountingServer,
  toolCall,
  type CountingServer,
} from '../helpers/quota-stack.js'
import { startClient, startService, type Service } from '../helpers/stack.js'
import { parsePrometheus } from '../../packages/server/test/helpers/parse-prometheus.js'

describe('pipelined calls behind an endless answer, then a hang-up', { timeout: 120_000 }, () => {
  let server: CountingServer
  let service: Service
  let cli: Child
  let url: string
  const sockets: Socket[] = []

  before(async () => {
    server = await startCountingServer()
    service = await startService({ BURROW_LOG: 'info' })
    const tunnel = await service.tunnel('piped')
    cli = await startClient(service, tunnel.key, ['--upstream', server.url])
    url = tunnel.url
  })

  after(async () => {
    for (const s of sockets) s.destroy()
    await cli?.stop()
    await server?.child.stop()
    await service?.close()
  })

  /** Bytes of request bodies burrowd holds now. */
  const bodyBytesHeld = async (): Promise<number> => {
    const text = await (await fetch(`http://127.0.0.1:${service.port}/metrics`)).text()
    const family = parsePrometheus(text).find((f) => f.name === 'burrowd_edge_request_body_bytes')
    return Number(family?.metrics[0]?.value ?? 0)
  }

  it('holds no session place, body budget or call for them', async () => {
    // The Free plan's three sessions, each used by one pipelined call.
    const sessions = [await openSession(url), await openSession(url), await openSession(url)]
    const calls = (await server.counts()).tool_calls
    const { host, pathname } = new URL(url)
    const socket = connect(service.port, '127.0.0.1')
    sockets.push(socket)
    let received = ''
    socket.setEncoding('latin1')
    socket.on('data', (chunk: string) => (received += chunk))
    socket.on('error', () => {})
    await new Promise<void>((resolve) => socket.once('connect', resolve))
    const head = (method: string, session: string, extra: string) =>
      `${method} ${pathname} HTTP/1.1\r\nhost: ${host}\r\n` +
      `accept: application/json, text/event-stream\r\nmcp-protocol-version: 2025-06-18\r\n` +
      `mcp-session-id: ${session}\r\n${extra}\r\n`
    const pipelined = sessions.map((session, i) => {
      const body = JSON.stringify(toolCall(`piped-${i}`, 'echo', { message: 'x'.repeat(60_000) }))
      const extra = `content-type: application/json\r\ncontent-length: ${body.length}\r\n`
      return head('POST', session, extra) + body
    })
    // One write: burrowd parses every request of it before it answers the first.
    socket.write(head('GET', sessions[0]!, '') + pipelined.join(''))
    while (!received.startsWith('HTTP/1.1 200')) await new Promise((r) => setTimeout(r, 20))
    socket.destroy()

    // A new agent gets a place at once: the three sessions are idle again.
    const deadline = Date.now() + 30_000
    let answer = await postMcp(url, initializeMessage('newcomer'))
    while (answer.status === 429 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100))
      answer = await postMcp(url, initializeMessage('newcomer'))
    }
    assert.equal(answer.status, 200, answer.text)
    for (let tries = 0; (await bodyBytesHeld()) > 0 && tries < 300; tries++)
      await new Promise((r) => setTimeout(r, 50))
    assert.equal(await bodyBytesHeld(), 0, 'every body budget given back')
    assert.equal((await server.counts()).tool_calls, calls, 'no pipelined call ran')
    // The sessions still work, each for a call of its own.
    for (const [i, session] of sessions.entries()) {
      const call = await postMcp(url, toolCall(i, 'echo', { message: 'after' }), session)
      assert.equal(call.status, 200, call.text)
    }
  })
})
