// Big and slow responses through the tunnel: a 20 MB body streams with the broker's memory
// bounded, a slow agent holds the upstream back instead of filling the broker, and an agent
// that hangs up cancels the upstream request.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { join } from 'node:path'
import { startChild, type Child } from '../helpers/child.js'
import { publicFetch } from '../helpers/public-fetch.js'
import { rssOf } from '../helpers/rss.js'
import { ROOT, startClient, startService, type Service } from '../helpers/stack.js'

const MB = 1024 * 1024
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('streaming through the tunnel', () => {
  let service: Service
  let upstream: Child
  let upstreamPort: number
  let cli: Child
  let url: string

  const stats = async () =>
    (await (await fetch(`http://127.0.0.1:${upstreamPort}/stats`)).json()) as {
      written: number
      aborted: number
      abortedSlow: number
      finished: number
    }
  const post = (body: unknown, signal?: AbortSignal) =>
    publicFetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify(body),
      ...(signal ? { signal } : {}),
    })

  before(async () => {
    upstream = startChild(process.execPath, [join(ROOT, 'test/fixtures/bulk-server.mjs')])
    upstreamPort = Number((await upstream.waitFor(/listening on (\d+)/))[1])
    service = await startService({ BURROW_LOG: 'info' })
    const tunnel = await service.tunnel('bulk')
    url = tunnel.url
    cli = await startClient(service, tunnel.key, [
      '--upstream',
      `http://127.0.0.1:${upstreamPort}/mcp`,
    ])
  })

  after(async () => {
    await cli?.stop()
    await upstream?.stop()
    await service?.close()
  })

  it('streams a 20 MB response with the broker memory growth bounded', async () => {
    const pid = service.proc.proc.pid!
    // The first big transfer grows the allocator to its working size; measure the next ones.
    const warm = await post({ jsonrpc: '2.0', id: 0, method: 'bulk', params: { bytes: 20 * MB } })
    await warm.arrayBuffer()
    const relay = async (bytes: number) => {
      const before = rssOf(pid)
      let peak = before ?? 0
      const sampler = setInterval(() => (peak = Math.max(peak, rssOf(pid) ?? 0)), 20)
      const res = await post({ jsonrpc: '2.0', id: 1, method: 'bulk', params: { bytes } })
      assert.equal(res.status, 200)
      let received = 0
      for await (const chunk of res.body!) received += (chunk as Uint8Array).length
      clearInterval(sampler)
      assert.equal(received, bytes)
      return before === null ? null : peak - before
    }
    // Growth is allocation churn the GC has not caught up with, whatever the body size (on a busy
    // machine it can pass 20 MB); a broker that held the response would grow by at least its
    // size, which the 100 MB relay shows plainly.
    const growth20 = await relay(20 * MB)
    const growth100 = await relay(100 * MB)
    if (growth20 !== null && growth100 !== null) {
      assert.ok(
        growth20 < 40 * MB,
        `broker RSS grew ${(growth20 / MB).toFixed(1)} MB while relaying 20 MB`,
      )
      assert.ok(
        growth100 < 50 * MB,
        `broker RSS grew ${(growth100 / MB).toFixed(1)} MB while relaying 100 MB`,
      )
    }
  })

  it('a slow-reading agent holds the upstream back instead of filling the broker', async () => {
    const start = (await stats()).written
    const controller = new AbortController()
    const body = { jsonrpc: '2.0', id: 2, method: 'bulk', params: { bytes: 100 * MB } }
    const res = await post(body, controller.signal)
    const reader = res.body!.getReader() as ReadableStreamDefaultReader<Uint8Array>
    await reader.read() // one chunk, then the agent stops reading
    const pid = service.proc.proc.pid!
    const rssBefore = rssOf(pid)
    await sleep(1500)
    const stalled = (await stats()).written - start
    const rssAfter = rssOf(pid)
    // Without backpressure the local server would write all 100 MB at once; with it, it stops
    // once the tunnel's window and the kernel's socket buffers on each hop are full.
    assert.ok(
      stalled < 60 * MB,
      `the upstream wrote ${(stalled / MB).toFixed(1)} MB to an agent that read one chunk`,
    )
    if (rssBefore !== null && rssAfter !== null) {
      // What the broker may hold is one stream window (at most 4 MiB); the rest of any growth is
      // socket-read garbage V8 has not collected yet, measured at up to 15 MB on a busy machine.
      // Buffering the body would take most of its 100 MB.
      const growth = rssAfter - rssBefore
      assert.ok(growth < 32 * MB, `broker RSS grew ${(growth / MB).toFixed(1)} MB`)
    }
    // Reading again resumes the flow.
    let received = 0
    while (received < 10 * MB) {
      const { done, value } = await reader.read()
      if (done) break
      received += value.length
    }
    assert.ok(received >= 10 * MB)
    controller.abort()
  })

  it('an agent that hangs up mid-call cancels the upstream request', async () => {
    const before = (await stats()).abortedSlow
    const controller = new AbortController()
    const pending = post({ jsonrpc: '2.0', id: 3, method: 'slow' }, controller.signal).catch(
      () => 'aborted',
    )
    await sleep(500)
    controller.abort()
    assert.equal(await pending, 'aborted')
    for (let i = 0; i < 50 && (await stats()).abortedSlow === before; i++) await sleep(100)
    assert.equal(
      (await stats()).abortedSlow,
      before + 1,
      'the local server saw its request cancelled',
    )
  })
})
