/** The recorder's memory and feed: limits by count and bytes, and change notifications. */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { TrafficRecorder, type TrafficEvent } from '../../src/inspector/traffic-recorder.js'
import type { LocalRequest } from '../../src/relay/local-exchange.js'

const encode = (value: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(value))

function request(body: unknown, headers: Record<string, string> = {}): LocalRequest {
  return {
    method: 'POST',
    path: '/mcp',
    headers,
    body: body === undefined ? new Uint8Array(0) : encode(body),
    signal: new AbortController().signal,
  }
}

describe('TrafficRecorder', () => {
  it('keeps the last N exchanges, oldest dropped first', () => {
    const recorder = new TrafficRecorder({ limit: 3 })
    for (let i = 1; i <= 5; i++) recorder.start(request({ jsonrpc: '2.0', id: i, method: 'ping' }))
    assert.deepEqual(
      recorder.list().map((s) => s.rpcId),
      [3, 4, 5],
    )
    assert.equal(recorder.get(1), undefined)
    assert.equal(recorder.get(5)?.summary().rpcId, 5)
  })

  it('keeps within its byte budget but always the newest exchange', () => {
    const recorder = new TrafficRecorder({ maxHeldBytes: 50_000, maxBodyBytes: 40_000 })
    const big = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { blob: 'x'.repeat(30_000) },
    }
    recorder.start(request(big))
    recorder.start(request({ ...big, id: 2 }))
    assert.deepEqual(
      recorder.list().map((s) => s.rpcId),
      [2],
    )
  })

  it('counts every string it keeps in its budget: headers, path, names, response headers', () => {
    // Found by hostile review: only body text was counted, so 200 calls with 4 MiB tool names
    // held 544 MiB against a 64 MiB budget, and GET /api/traffic answered 340 MiB.
    const recorder = new TrafficRecorder({ maxHeldBytes: 1024 * 1024 })
    const name = 'x'.repeat(4 * 1024 * 1024)
    for (let i = 0; i < 20; i++) {
      const recording = recorder.start({
        ...request(
          { jsonrpc: '2.0', id: i, method: 'tools/call', params: { name } },
          { 'x-pad': 'h'.repeat(100_000) },
        ),
        path: `/mcp?${'p'.repeat(50_000)}`,
      })
      assert.ok(recording.heldBytes >= 2 * 150_000, `request head counted: ${recording.heldBytes}`)
      const before = recording.heldBytes
      recording.head(200, { 'x-answer': 'a'.repeat(40_000) })
      assert.ok(recording.heldBytes - before >= 2 * 40_000, 'response headers counted')
    }
    const kept = recorder.list()
    assert.ok(kept.length <= 4, `${kept.length} exchanges of ~400 KB kept in 1 MiB`)
    assert.ok(kept.every((s) => s.toolName!.length <= 201))
    let held = 0
    for (const s of kept) held += recorder.get(s.id)!.heldBytes
    assert.ok(held <= 1024 * 1024, `held ${held}`)
  })

  it('keeps within its budget while responses grow, not only when exchanges start', () => {
    // Found by hostile review: the budget was checked only by start(), so answers that went on
    // streaming after the last exchange started grew without bound.
    const budget = 1024 * 1024
    const recorder = new TrafficRecorder({ maxHeldBytes: budget })
    const sse = Array.from({ length: 10 }, (_, i) => {
      const recording = recorder.start(request({ jsonrpc: '2.0', id: i, method: 'tools/call' }))
      recording.head(200, { 'content-type': 'text/event-stream' })
      return recording
    })
    const json = recorder.start(request({ jsonrpc: '2.0', id: 10, method: 'tools/call' }))
    json.head(200, { 'content-type': 'application/json' })
    const event = encode({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { p: 'x'.repeat(20_000) },
    })
    for (let round = 0; round < 12; round++) {
      for (const recording of sse)
        recording.chunk(new TextEncoder().encode(`data: ${new TextDecoder().decode(event)}\n\n`))
      json.chunk(new Uint8Array(20_000).fill(32))
      let held = 0
      for (const s of recorder.list()) held += recorder.get(s.id)!.heldBytes
      assert.ok(held <= budget, `round ${round}: ${held} bytes held against ${budget}`)
    }
    assert.ok(recorder.list().length < 11, 'the oldest were dropped')
    assert.ok(recorder.get(10), 'the newest is kept')
  })

  it('tells subscribers about new, changed and cleared exchanges, and stops when asked', () => {
    let now = 1_000
    const recorder = new TrafficRecorder({ clock: () => now })
    const events: TrafficEvent[] = []
    const unsubscribe = recorder.subscribe((e) => events.push(e))
    const recording = recorder.start(request({ jsonrpc: '2.0', id: 1, method: 'ping' }))
    now += 5
    recording.head(200, { 'Content-Type': 'application/json' })
    recording.chunk(encode({ jsonrpc: '2.0', id: 1, result: {} }))
    now += 10
    recording.finish('complete')
    recording.finish('failed', 'ignored: already finished')
    recorder.clear()
    unsubscribe()
    recorder.start(request(undefined))
    const states = events.map((e) => (e.type === 'exchange' ? e.exchange.state : e.type))
    assert.deepEqual(states, ['pending', 'streaming', 'complete', 'cleared'])
    const done = events[2]
    assert.ok(done?.type === 'exchange')
    assert.equal(done.exchange.latencyMs, 5)
    assert.equal(done.exchange.durationMs, 15)
    assert.equal(done.exchange.error, null)
    assert.equal(done.exchange.startedAt, 1_000)
  })

  it('does not let a throwing subscriber disturb recording', () => {
    const recorder = new TrafficRecorder()
    recorder.subscribe(() => {
      throw new Error('bad listener')
    })
    const recording = recorder.start(request({ jsonrpc: '2.0', id: 1, method: 'ping' }))
    recording.head(202, {})
    recording.finish('complete')
    assert.equal(recorder.list()[0]?.state, 'complete')
  })

  it('does not keep the request object (its full body) alive', () => {
    const recorder = new TrafficRecorder({ maxBodyBytes: 10 })
    const req = request({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'y'.repeat(100) } })
    const recording = recorder.start(req)
    assert.equal(recording.detail().requestBody.text.length, 10)
    assert.equal(recording.request(), null, 'a cut body cannot be replayed')
  })
})
