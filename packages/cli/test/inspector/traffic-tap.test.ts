/**
 * The tap between the tunnel and the local handler: what it records of JSON and SSE exchanges,
 * and that the agent still gets every byte unchanged and as soon as the handler writes it.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { LocalRequest, LocalResponse, RequestHandler } from '../../src/relay/local-exchange.js'
import { initialize, post, type RawSession } from '../helpers/raw-mcp.js'
import { fakeMcp, type FakeMcp } from './fake-mcp-handler.js'
import { serveTapped, until, type ServedTap } from './serve-tapped.js'

/** Reads a response body as text, chunk by chunk, so a test can wait for a piece to arrive. */
class TextReader {
  text = ''
  done = false
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>
  readonly #decoder = new TextDecoder()
  constructor(res: Response) {
    this.#reader = res.body!.getReader()
  }
  async waitFor(piece: string, timeoutMs = 3_000): Promise<void> {
    const deadline = Date.now() + timeoutMs
    while (!this.text.includes(piece)) {
      if (this.done || Date.now() > deadline) throw new Error(`"${piece}" did not arrive`)
      const { value, done } = await this.#reader.read()
      if (done) this.done = true
      else this.text += this.#decoder.decode(value, { stream: true })
    }
  }
  async rest(): Promise<string> {
    for (;;) {
      const { value, done } = await this.#reader.read()
      if (done) return this.text
      this.text += this.#decoder.decode(value, { stream: true })
    }
  }
}

const call = (id: number, name: string, args: unknown = {}): unknown => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
})

describe('tapHandler', { timeout: 20_000 }, () => {
  let fake: FakeMcp
  let served: ServedTap
  let session: RawSession

  before(async () => {
    fake = fakeMcp({ gated: true })
    served = await serveTapped(fake)
    session = await initialize(served.url)
  })
  after(() => served.close())

  it('records a JSON exchange while the agent gets the same bytes', async () => {
    const res = await session.post(call(7, 'echo', { text: 'héllo' }))
    const text = await res.text()
    assert.equal(res.status, 200)
    const summary = served.recorder.list().find((s) => s.rpcId === 7)!
    assert.equal(summary.rpcMethod, 'tools/call')
    assert.equal(summary.toolName, 'echo')
    assert.equal(summary.sessionId, session.sessionId)
    assert.equal(summary.status, 200)
    assert.equal(summary.state, 'complete')
    assert.equal(summary.messageCount, 1)
    assert.equal(summary.rpcError, false)
    assert.ok(summary.latencyMs !== null && summary.durationMs !== null)
    assert.ok(summary.durationMs >= summary.latencyMs)
    const detail = served.recorder.get(summary.id)!.detail()
    assert.equal(detail.responseBody?.text, text)
    assert.equal(detail.responseBody?.truncated, false)
    assert.deepEqual(JSON.parse(detail.requestBody.text), call(7, 'echo', { text: 'héllo' }))
    assert.equal(detail.requestHeaders['mcp-session-id'], session.sessionId)
    assert.equal(detail.responseKind, 'body')
  })

  it('records the session that initialize opened and flags JSON-RPC errors', async () => {
    const init = served.recorder.list().find((s) => s.rpcMethod === 'initialize')!
    assert.equal(init.sessionId, session.sessionId)
    const failed = await session.post(call(8, 'fail'))
    await failed.text()
    const summary = served.recorder.list().find((s) => s.rpcId === 8)!
    assert.equal(summary.rpcError, true)
  })

  it('passes SSE events through one by one and records each message as it arrives', async () => {
    const changes: number[] = []
    const unsubscribe = served.recorder.subscribe((e) => {
      if (e.type === 'exchange' && e.exchange.rpcId === 9) changes.push(e.exchange.messageCount)
    })
    const res = await session.post(call(9, 'stream'))
    assert.equal(res.headers.get('content-type'), 'text/event-stream')
    const reader = new TextReader(res)
    const summary = await until(() => served.recorder.list().find((s) => s.rpcId === 9))
    const recording = served.recorder.get(summary.id)!

    // The handler holds the second event until released: the first must already be with the
    // agent and in the recorder, so neither the tap nor the adapter buffers.
    await fake.waitingForRelease()
    fake.release()
    await reader.waitFor('"progress":1}')
    assert.ok(!reader.text.includes('"progress":2'))
    await until(() => (recording.detail().messages.length === 1 ? true : undefined))
    assert.equal(recording.summary().state, 'streaming')

    await fake.waitingForRelease()
    fake.release()
    await reader.waitFor('"progress":2}')
    await fake.waitingForRelease()
    fake.release()
    const text = await reader.rest()
    unsubscribe()

    const note = (i: number): string =>
      `id: e${i}\r\nevent: message\r\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progress: i } })}\r\n\r\n`
    const answer = {
      jsonrpc: '2.0',
      id: 9,
      result: { content: [{ type: 'text', text: 'streamed' }] },
    }
    assert.equal(text, `${note(1)}${note(2)}id: e3\ndata: ${JSON.stringify(answer)}\n\n`)

    await until(() => (recording.finished ? true : undefined))
    const detail = recording.detail()
    assert.equal(detail.state, 'complete')
    assert.equal(detail.responseKind, 'sse')
    assert.equal(detail.responseBody, null)
    assert.deepEqual(
      detail.messages.map((m) => m.eventId),
      ['e1', 'e2', 'e3'],
    )
    assert.deepEqual(detail.messages[2]!.message, answer)
    assert.ok(detail.messages[0]!.at <= detail.messages[2]!.at)
    assert.equal(detail.responseBytes, Buffer.byteLength(text))
    // Head, then one update per message, then the end.
    assert.deepEqual(changes.slice(-3), [2, 3, 3])
    assert.ok(changes.includes(1))
  })

  it('marks an exchange aborted when the agent hangs up mid-stream', async () => {
    const abort = new AbortController()
    const res = await session.post(call(10, 'stream'), abort.signal)
    const reader = new TextReader(res)
    await fake.waitingForRelease()
    fake.release()
    await reader.waitFor('"progress":1}')
    abort.abort()
    const summary = await until(() =>
      served.recorder.list().find((s) => s.rpcId === 10 && s.state === 'aborted'),
    )
    assert.match(summary.error ?? '', /disconnected/)
    // Let the fake finish its (now ignored) writes.
    fake.release()
    await fake.waitingForRelease()
    fake.release()
    await until(() => (fake.calls >= 4 ? true : undefined))
  })
})

describe('tapHandler bounds and failures', { timeout: 20_000 }, () => {
  it('cuts bodies over the bound with a marker while the agent gets every byte', async () => {
    const served = await serveTapped(fakeMcp(), { maxBodyBytes: 1024 })
    try {
      const session = await initialize(served.url)
      const big = 'x'.repeat(5000)
      const res = await session.post(call(1, 'echo', { big }))
      const answer = (await res.json()) as { result: { content: { text: string }[] } }
      const echoed = JSON.parse(answer.result.content[0]!.text) as { args: { big: string } }
      assert.equal(echoed.args.big, big)
      const summary = served.recorder.list().find((s) => s.rpcId === 1)!
      const detail = served.recorder.get(summary.id)!.detail()
      assert.equal(detail.requestBody.truncated, true)
      assert.equal(detail.requestBody.text.length, 1024)
      assert.ok(detail.requestBody.bytes > 5000)
      assert.equal(detail.responseBody?.truncated, true)
      assert.equal(detail.responseBody?.text.length, 1024)
      assert.equal(detail.replayable, false)
      // The list still knows what the call was: the summary reads the whole request.
      assert.equal(detail.toolName, 'echo')
    } finally {
      await served.close()
    }
  })

  it('records a handler that throws as failed and passes the error on', async () => {
    const broken: RequestHandler = {
      handle: async (_req: LocalRequest, _res: LocalResponse) => {
        throw new Error('backend exploded')
      },
      close: async () => {},
    }
    const served = await serveTapped(broken)
    try {
      const res = await post(served.url, { jsonrpc: '2.0', id: 1, method: 'ping' })
      assert.equal(res.status, 500)
      await res.text()
      const [summary] = served.recorder.list()
      assert.equal(summary?.state, 'failed')
      assert.equal(summary?.error, 'backend exploded')
      assert.equal(summary?.rpcMethod, 'ping')
    } finally {
      await served.close()
    }
  })
})
