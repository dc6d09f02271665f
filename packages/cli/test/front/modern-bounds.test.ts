/**
 * What a 2026-07-28 agent can make `burrow up` hold or send (found by a hostile review): calls
 * parked waiting for input are bounded like the sessions they hold, and a `subscriptions/listen`
 * acknowledges only the resource subscriptions one session may hold, all of which reach the server.
 */
import assert from 'node:assert/strict'
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { fixturePath } from '../helpers/fixtures.js'
import { answerOf, modernMeta as meta, sendModern as send, SseReader } from '../helpers/raw-mcp.js'
import { closeAllFronts, serveStdioFront } from '../helpers/serve-front.js'

const slowServer = { command: process.execPath, args: [fixturePath('slow-stdio-server.mjs')] }

after(closeAllFronts)

describe('bounds of the 2026-07-28 front', { timeout: 60_000 }, () => {
  it('parked input_required calls are bounded like sessions (maxSessions)', async () => {
    // The front refuses a third 2025 session (maxSessions 2, all busy), but every 2026-07-28
    // call that asks for input is parked with its own backend session, with no bound at all.
    const served = await serveStdioFront({ ...slowServer, front: { maxSessions: 2 } })
    const sampling = meta({ sampling: {} })
    // One after the other: each call is parked before the next starts.
    const answers: unknown[] = []
    for (const id of [1, 2, 3, 4, 5, 6]) {
      const params = { name: 'ask', arguments: {}, _meta: sampling }
      answers.push(await answerOf(await send(served.url, id, 'tools/call', params)))
    }
    const parked = answers.filter(
      (a) => (a as { result?: { resultType?: string } }).result?.resultType === 'input_required',
    ).length
    assert.ok(
      parked <= 2,
      `${parked} calls parked (each holding a backend session and a server request for 10 minutes) with maxSessions 2`,
    )
    await served.close()
  })

  it('one agent has at most its share of calls parked (found by a hostile review)', async () => {
    // The edge holds a place for a 2026-07-28 request only while it is in flight: one agent
    // leaving calls waiting took every parked place (10,000, each with a session of the server),
    // and every other agent's call that asked for input was ended. Another agent's share is the
    // bridge's test (here a stdio server's question is refused while two agents have calls).
    const served = await serveStdioFront({
      ...slowServer,
      front: { maxSessions: 10, maxParkedPerAgent: 2 },
    })
    const params = { name: 'ask', arguments: {}, _meta: meta({ sampling: {} }) }
    const resultType = async (id: number, agent: string) => {
      const answer = await answerOf(
        await send(served.url, id, 'tools/call', params, { 'burrow-agent': agent }),
      )
      return (answer as { result?: { resultType?: string } }).result?.resultType
    }
    assert.equal(await resultType(1, 'agt_a'), 'input_required')
    assert.equal(await resultType(2, 'agt_a'), 'input_required')
    assert.notEqual(await resultType(3, 'agt_a'), 'input_required', "past the agent's share")
    await served.close()
  })

  it('subscriptions/listen acknowledges only the resource subscriptions it made', async () => {
    const countFile = join(tmpdir(), `subscribe-count-${process.pid}.txt`)
    writeFileSync(countFile, '')
    const served = await serveStdioFront({
      command: process.execPath,
      args: [fixturePath('subscribe-counting-server.mjs')],
      env: { COUNT_FILE: countFile },
    })
    const uris = Array.from({ length: 5_000 }, (_, i) => `file:///r/${i}`)
    const controller = new AbortController()
    const res = await send(
      served.url,
      'L',
      'subscriptions/listen',
      { notifications: { resourceSubscriptions: uris } },
      {},
      controller.signal,
    )
    const reader = new SseReader(res)
    const ack = JSON.parse((await reader.next())!.data) as {
      params: { notifications: { resourceSubscriptions?: string[] } }
    }
    await new Promise((r) => setTimeout(r, 1_500))
    const subscribes = readFileSync(countFile, 'utf8').split('\n').filter(Boolean).length
    controller.abort()
    await served.close()
    rmSync(countFile, { force: true })
    // The backend subscribes a session to at most 1,000 URIs (MAX_SUBSCRIPTIONS_PER_SESSION);
    // the acknowledgment must not promise updates for URIs that were never subscribed.
    assert.equal(
      ack.params.notifications.resourceSubscriptions?.length,
      subscribes,
      `the acknowledgment honours ${ack.params.notifications.resourceSubscriptions?.length} URIs, but only ${subscribes} resources/subscribe reached the server`,
    )
  })
})
