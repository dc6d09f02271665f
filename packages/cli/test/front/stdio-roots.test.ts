/**
 * Roots and a stdio server, which one child serves to every agent: the roots-following-server
 * fixture replaces its allowed directories with its client's roots, as the reference filesystem
 * server does. One agent's roots reaching it would set what every agent's calls may touch (an
 * agent on the internet widening the owner's `~/project` to `file:///`), and they name directories
 * of the agent's machine anyway: burrow up declares no `roots` to it, forwards no
 * `roots/list_changed`, and answers its `roots/list` itself with an error.
 */
import assert from 'node:assert/strict'
import { after, describe, it } from 'node:test'
import { captureLogger } from '../helpers/capture-logger.js'
import { fixturePath } from '../helpers/fixtures.js'
import { answerOf, modernMeta, sendModern } from '../helpers/raw-mcp.js'
import { connectRootsAgent } from '../helpers/roots-agent.js'
import { closeAllFronts, serveStdioFront } from '../helpers/serve-front.js'

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
      const seen = JSON.parse(await owner.call('allowed')) as Followed
      assert.deepEqual(seen.allowed, [PROJECT])
      assert.deepEqual(seen.declared, [false], 'the handshake it had declared no roots')
      assert.equal(seen.refusals.length, 1)
      assert.match(seen.refusals[0]!, /shares this server between agents/)
      assert.equal(owner.asked() + hostile.asked(), 0, 'no agent was asked for its roots')
      assert.ok(!logger.lines.some((l) => /\broots file:/.test(l)))
    } finally {
      await served.close()
    }
  })

  it('answers its roots/list during a call with an error, not the calling agent', async () => {
    const served = await serveStdioFront(rootsServer)
    try {
      const agent = await connectRootsAgent(served.url, ['file:///'])
      assert.match(await agent.call('ask-roots'), /MCP error -32601: .*shares this server/)
      assert.equal(agent.asked(), 0)
      const seen = JSON.parse(await agent.call('allowed')) as Followed
      assert.deepEqual(seen.allowed, [PROJECT])
    } finally {
      await served.close()
    }
  })

  it('hostile: 2026-07-28 agents declaring roots in _meta neither initialize it with them nor are asked', async () => {
    const served = await serveStdioFront(rootsServer)
    try {
      const roots = { _meta: modernMeta({ roots: {} }) }
      const asking = { name: 'ask-roots', arguments: {}, ...roots }
      const first = (await answerOf(await sendModern(served.url, 1, 'tools/call', asking))) as {
        result: { resultType: string; content?: { text: string }[] }
      }
      assert.equal(first.result.resultType, 'complete', 'no input_required: nobody was asked')
      assert.match(first.result.content![0]!.text, /shares this server between agents/)
      const allowed = { name: 'allowed', arguments: {}, ...roots }
      const answer = (await answerOf(await sendModern(served.url, 2, 'tools/call', allowed))) as {
        result: { content: { text: string }[] }
      }
      const seen = JSON.parse(answer.result.content[0]!.text) as Followed
      assert.deepEqual(seen.allowed, [PROJECT])
      assert.deepEqual(seen.declared, [false])
    } finally {
      await served.close()
    }
  })
})
