/**
 * Log messages of a stdio server on 2026-07-28 calls (`_meta` logLevel): a stdio server does not
 * say which call a line is for, so a call hears the lines written while it is the only agent's
 * call in flight, never those written for another agent's call running beside it.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { fixturePath } from '../helpers/fixtures.js'
import {
  allMessagesOf,
  modernMeta,
  sendModern as send,
  untilEventWith,
  SseReader,
} from '../helpers/raw-mcp.js'
import { closeAllFronts, serveStdioFront, type ServedFront } from '../helpers/serve-front.js'

const slowServer = { command: process.execPath, args: [fixturePath('slow-stdio-server.mjs')] }
const logged = { ...modernMeta(), 'io.modelcontextprotocol/logLevel': 'debug' }

function logsIn(messages: readonly Record<string, unknown>[]): unknown[] {
  return messages.filter((m) => m.method === 'notifications/message').map((m) => m.params)
}

describe('log messages on 2026-07-28 calls over one stdio server', { timeout: 30_000 }, () => {
  let served: ServedFront

  before(async () => {
    served = await serveStdioFront({ ...slowServer, front: { keepAliveMs: 0 } })
  })
  after(closeAllFronts)

  it("relays the server's log lines to the only agent calling", async () => {
    const params = { name: 'announce', arguments: {}, _meta: logged }
    const messages = await allMessagesOf(
      await send(served.url, 1, 'tools/call', params, { 'burrow-agent': 'agt_a' }),
    )
    assert.deepEqual(logsIn(messages), [{ level: 'info', data: 'hi' }])
  })

  it("keeps one agent's log lines off another agent's call in flight", async () => {
    const slow = {
      name: 'slow',
      arguments: { ms: 3_000, steps: 2 },
      _meta: { ...logged, progressToken: 'p' },
    }
    const b = await send(served.url, 1, 'tools/call', slow, { 'burrow-agent': 'agt_b' })
    const stream = new SseReader(b)
    // b's call is with the server once its first progress comes.
    await untilEventWith(stream, 'notifications/progress')
    const announce = { name: 'announce', arguments: {}, _meta: logged }
    const a = await send(served.url, 2, 'tools/call', announce, { 'burrow-agent': 'agt_a' })
    const aMessages = await allMessagesOf(a)
    assert.ok(aMessages.some((m) => 'result' in m))
    const bMessages = (await stream.rest()).map(
      (e) => JSON.parse(e.data) as Record<string, unknown>,
    )
    assert.deepEqual(logsIn(bMessages), [], JSON.stringify(bMessages))
    assert.ok(bMessages.some((m) => 'result' in m))
  })
})
