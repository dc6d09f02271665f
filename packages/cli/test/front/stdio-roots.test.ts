/**
 * Roots and a stdio server, which one child serves to every agent: the roots-following-server
 * fixture replaces its allowed directories with its client's roots after `initialized` and on
 * `roots/list_changed`, as the reference filesystem server does. One agent's roots reaching it
 * there would set what every agent's calls may touch (an agent on the internet widening the
 * owner's `~/project` to `file:///`): burrow up forwards no agent's `roots/list_changed` and
 * answers a `roots/list` that came during no call, or before the child answered the ping sent
 * after `initialized` (whatever call an agent put in flight then), itself, with an error. One
 * asked during a call goes to that call's agent alone.
 */
import assert from 'node:assert/strict'
import { after, describe, it } from 'node:test'
import { captureLogger } from '../helpers/capture-logger.js'
import { fixturePath } from '../helpers/fixtures.js'
import { initializeRequest, post, SseReader } from '../helpers/raw-mcp.js'
import { connectRootsAgent } from '../helpers/roots-agent.js'
import { closeAllFronts, serveStdioFront } from '../helpers/serve-front.js'
import { until } from '../aggregator/aggregator-harness.js'

const PROJECT = 'file:///home/owner/project'
const rootsServer = {
  command: process.execPath,
  args: [fixturePath('roots-following-server.mjs'), '--allow', PROJECT],
}

/** What the fixture's `allowed` tool reports. */
interface Followed {
  allowed: string[]
  declared: boolean[]
  refusals: string[]
}

after(closeAllFronts)

describe('a stdio server that follows its client roots', { timeout: 30_000 }, () => {
  it('hostile: keeps its own directories whatever roots agents declare and announce', async () => {
    const logger = captureLogger()
    const served = await serveStdioFront({ ...rootsServer, logger })
    try {
      const owner = await connectRootsAgent(served.url, [PROJECT])
      const hostile = await connectRootsAgent(served.url, ['file:///'])
      await hostile.client.sendRootsListChanged()
      // The server asks again once this call is answered, with no call in flight.
      assert.equal(await hostile.call('ask-roots', { later: true }), 'asking after this answer')
      // A call of the owner's in flight when it comes would be asked instead (as sampling is).
      await until(() => logger.lines.filter((l) => l.includes('roots refused')).length === 2)
      const seen = JSON.parse(await owner.call('allowed')) as Followed
      assert.deepEqual(seen.allowed, [PROJECT])
      assert.deepEqual(seen.declared, [true], 'the first agent declared roots')
      // After initialized, and after the hostile call: never on the notification.
      assert.equal(seen.refusals.length, 2)
      assert.match(seen.refusals[0]!, /in answer to notifications\/initialized/)
      assert.match(seen.refusals[1]!, /came during no call/)
      assert.equal(owner.asked() + hostile.asked(), 0, 'no agent was asked for its roots')
      assert.ok(!logger.lines.some((l) => /\broots file:/.test(l)))
    } finally {
      await served.close()
    }
  })

  it('hostile: a call in flight when the first initialized reaches it is not asked the roots it asks then', async () => {
    const served = await serveStdioFront(rootsServer)
    try {
      // The first agent of the child, with a call in flight (the server asks it something, left
      // unanswered; any slow call would do) when it sends initialized.
      const init = await post(served.url, initializeRequest('hostile', '2025-11-25', { roots: {} }))
      const headers = { 'mcp-session-id': init.headers.get('mcp-session-id')! }
      await init.body?.cancel()
      const send = (message: unknown) => post(served.url, message, headers)
      const params = { name: 'ask-roots', arguments: {} }
      const call = new SseReader(
        await send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params }),
      )
      const during = JSON.parse((await call.next())!.data) as { id: number; method: string }
      assert.equal(during.method, 'roots/list', 'asked during its call: its own')
      await (await send({ jsonrpc: '2.0', method: 'notifications/initialized' })).body?.cancel()
      // Had the roots/list in answer to initialized reached it, it would answer file:///.
      await (await send({ jsonrpc: '2.0', id: during.id, result: { roots: [] } })).body?.cancel()
      const rest = JSON.parse((await call.next())!.data) as { method?: string; id?: number }
      if (rest.method === 'roots/list') {
        const root = { roots: [{ uri: 'file:///' }] }
        await (await send({ jsonrpc: '2.0', id: rest.id, result: root })).body?.cancel()
      }
      assert.equal(rest.id, 1, 'the call ended, no other roots/list asked of its agent')
      await call.cancel()
      const owner = await connectRootsAgent(served.url, [PROJECT])
      const seen = JSON.parse(await owner.call('allowed')) as Followed
      assert.deepEqual(seen.allowed, [PROJECT])
      assert.deepEqual(seen.declared, [true])
      assert.equal(seen.refusals.length, 1)
      assert.match(seen.refusals[0]!, /in answer to notifications\/initialized/)
    } finally {
      await served.close()
    }
  })

  it("asks a roots/list during a call of the calling agent alone, and the server's directories stay", async () => {
    const served = await serveStdioFront(rootsServer)
    try {
      const first = await connectRootsAgent(served.url, ['file:///first'])
      const caller = await connectRootsAgent(served.url, ['file:///caller'])
      const other = await connectRootsAgent(served.url, ['file:///other'])
      await other.call('allowed')
      const answered = JSON.parse(await caller.call('ask-roots')) as { uri: string }[]
      assert.deepEqual(answered, [{ uri: 'file:///caller' }])
      assert.deepEqual([first.asked(), caller.asked(), other.asked()], [0, 1, 0])
      const seen = JSON.parse(await other.call('allowed')) as Followed
      assert.deepEqual(seen.allowed, [PROJECT])
    } finally {
      await served.close()
    }
  })
})
