/**
 * Replay: a recorded request sent again to the local handler, directly, with its session header
 * and a fresh JSON-RPC id, and the new response captured for display beside the old one.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createReplayer, ReplayError } from '../../src/inspector/replay-exchange.js'
import { TrafficRecorder } from '../../src/inspector/traffic-recorder.js'
import type { LocalRequest, RequestHandler } from '../../src/relay/local-exchange.js'
import { initialize, type RawSession } from '../helpers/raw-mcp.js'
import { fakeMcp, type FakeMcp } from './fake-mcp-handler.js'
import { serveTapped, type ServedTap } from './serve-tapped.js'

describe('createReplayer', { timeout: 20_000 }, () => {
  let fake: FakeMcp
  let served: ServedTap
  let session: RawSession
  let replay: ReturnType<typeof createReplayer>

  before(async () => {
    fake = fakeMcp()
    served = await serveTapped(fake)
    session = await initialize(served.url)
    replay = createReplayer({ recorder: served.recorder, handler: () => fake })
  })
  after(() => served.close())

  const idOf = (rpcId: number): number => served.recorder.list().find((s) => s.rpcId === rpcId)!.id

  it('sends the request again in its session with a fresh id and returns the new answer', async () => {
    const params = { name: 'echo', arguments: { q: 1 } }
    await (await session.post({ jsonrpc: '2.0', id: 5, method: 'tools/call', params })).text()
    const before = served.recorder.list().length
    const result = await replay(idOf(5))

    const sent = fake.seen.at(-1)!
    assert.equal(sent.headers['mcp-session-id'], session.sessionId)
    assert.equal(sent.headers['content-length'], undefined)
    assert.deepEqual(sent.body, {
      jsonrpc: '2.0',
      id: 'burrow-replay-1',
      method: 'tools/call',
      params,
    })
    assert.equal(result.sentId, 'burrow-replay-1')
    assert.equal(result.status, 200)
    assert.equal(result.error, null)
    assert.equal(result.kind, 'body')
    const answer = JSON.parse(result.body!.text) as {
      id: string
      result: { content: { text: string }[] }
    }
    assert.equal(answer.id, 'burrow-replay-1')
    assert.deepEqual(JSON.parse(answer.result.content[0]!.text), { call: 2, args: { q: 1 } })
    // Replays go straight to the handler: the tap does not list them as agent traffic.
    assert.equal(served.recorder.list().length, before)
  })

  it('captures an SSE answer as messages', async () => {
    const call = { jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'stream' } }
    await (await session.post(call)).text()
    const result = await replay(idOf(6))
    assert.equal(result.kind, 'sse')
    assert.equal(result.messages.length, 3)
    assert.deepEqual(result.messages[2]!.message, {
      jsonrpc: '2.0',
      id: 'burrow-replay-2',
      result: { content: [{ type: 'text', text: 'streamed' }] },
    })
    assert.ok(result.durationMs >= 0)
  })

  it('a call whose session ended: opens a new one with the recorded initialize, and says so', async () => {
    const params = { name: 'echo', arguments: { q: 'again' } }
    await (await session.post({ jsonrpc: '2.0', id: 7, method: 'tools/call', params })).text()
    // A server that knows none of the agent's sessions, as after a restart.
    const restarted = fakeMcp()
    const again = createReplayer({ recorder: served.recorder, handler: () => restarted })
    const result = await again(idOf(7))
    assert.equal(result.status, 200)
    assert.equal(result.error, null)
    assert.match(
      result.note ?? '',
      new RegExp(
        `^session ${session.sessionId} had ended \\(the server answered 404\\), so this call was sent in a new session, sess-1, opened with the agent's initialize \\(exchange \\d+\\)$`,
      ),
    )
    assert.deepEqual(
      restarted.seen.map((r) => [r.body?.method, r.headers['mcp-session-id'] ?? null]),
      [
        ['tools/call', session.sessionId],
        ['initialize', null],
        ['notifications/initialized', 'sess-1'],
        ['tools/call', 'sess-1'],
      ],
    )
    assert.deepEqual(restarted.seen[1]!.body?.params, fake.seen[0]!.body?.params)
    // Later replays from the ended session go straight to the new one.
    const next = await again(idOf(7))
    assert.equal(next.status, 200)
    assert.equal(next.note, null)
    assert.equal(restarted.seen.at(-1)!.headers['mcp-session-id'], 'sess-1')
    assert.equal(restarted.seen.length, 5)
  })

  it('a call whose session ended, where no new session opens: the 404 and why', async () => {
    const params = { name: 'echo', arguments: {} }
    await (await session.post({ jsonrpc: '2.0', id: 8, method: 'tools/call', params })).text()
    const gone: RequestHandler = {
      handle: async (_req, res) => {
        res.writeHead(404, { 'content-type': 'text/plain' })
        res.end()
      },
      close: async () => {},
    }
    const result = await createReplayer({ recorder: served.recorder, handler: () => gone })(idOf(8))
    assert.equal(result.status, 404)
    assert.equal(
      result.error,
      `session ${session.sessionId} has ended (the server answered 404) and no new session could be opened (initialize answered 404 without a session id); replay the agent's initialize, or call again from the agent`,
    )
  })

  it('refuses exchanges it no longer has or cannot send again', async () => {
    await assert.rejects(replay(9999), (err: unknown) => {
      assert.ok(err instanceof ReplayError)
      assert.equal(err.code, 'not_found')
      return true
    })
    const recorder = new TrafficRecorder()
    const get = recorder.start({
      method: 'GET',
      path: '/mcp',
      headers: {},
      body: new Uint8Array(0),
      signal: new AbortController().signal,
    })
    const other = createReplayer({ recorder, handler: () => fake })
    await assert.rejects(other(get.id), { name: 'ReplayError', code: 'not_replayable' })
  })

  it('stops waiting after its timeout and hangs up on the handler', async () => {
    let seen: LocalRequest | undefined
    const silent: RequestHandler = {
      handle: (req) =>
        new Promise<void>((resolve) => {
          seen = req
          req.signal.addEventListener('abort', () => resolve())
        }),
      close: async () => {},
    }
    const recorder = new TrafficRecorder()
    const body = new TextEncoder().encode('{"jsonrpc":"2.0","id":1,"method":"ping"}')
    const recording = recorder.start({
      method: 'POST',
      path: '/mcp',
      headers: {},
      body,
      signal: new AbortController().signal,
    })
    const result = await createReplayer({ recorder, handler: () => silent, timeoutMs: 100 })(
      recording.id,
    )
    assert.equal(result.status, null)
    assert.match(result.error ?? '', /no complete response within/)
    assert.equal(seen?.signal.aborted, true)
  })
})
