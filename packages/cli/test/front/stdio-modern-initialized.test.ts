/**
 * A 2026-07-28 agent has no handshake: burrow's seat initializes a fresh stdio child for it and
 * sends `notifications/initialized` as it reads the answer. That notification reached the child
 * only once a 2025 agent sent its own: the seat's came before the gate knew the child was
 * ready, and was dropped, so a server that waits for `initialized` (or refuses requests before
 * it) served 2026-07-28 agents uninitialized (found by a review).
 */
import assert from 'node:assert/strict'
import { after, describe, it } from 'node:test'
import { fixturePath } from '../helpers/fixtures.js'
import { answerOf, modernMeta, sendModern } from '../helpers/raw-mcp.js'
import { closeAllFronts, serveStdioFront } from '../helpers/serve-front.js'

after(closeAllFronts)

describe('a fresh stdio server whose first agent is a 2026-07-28 one', { timeout: 30_000 }, () => {
  it('hears notifications/initialized before that agent first call', async () => {
    const served = await serveStdioFront({
      command: process.execPath,
      args: [fixturePath('roots-following-server.mjs'), '--allow', 'file:///srv'],
    })
    try {
      const params = { name: 'allowed', arguments: {}, _meta: modernMeta({}) }
      const answer = (await answerOf(await sendModern(served.url, 1, 'tools/call', params))) as {
        result: { content: { text: string }[] }
      }
      const seen = JSON.parse(answer.result.content[0]!.text) as { declared: boolean[] }
      // oninitialized records whether its client declared roots (the seat declares what it can
      // carry to a 2026-07-28 agent): once, before the call.
      assert.deepEqual(seen.declared, [true])
    } finally {
      await served.close()
    }
  })
})
