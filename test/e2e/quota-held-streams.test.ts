// The bandwidth quota against responses held open, through real processes: a local server
// behind `burrow up` answers calls with SSE streams that carry a little less than 1 MiB each and
// then stay open. Before, each response's bytes waited uncounted until it reached 1 MiB or ended:
// forty such answers moved some 38 MiB on a Free tunnel at its limit that no counter saw and
// nothing cut, and a slow GET stream's bytes were counted hours late, or never when burrowd
// stopped first (found by a hostile review).
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import {
  RESPONSE_BATCH_BYTES,
  RESPONSE_OVERAGE_BYTES,
} from '../../packages/server/src/quota/quota-gate.js'
import { startChild, type Child } from '../helpers/child.js'
import { publicFetch } from '../helpers/public-fetch.js'
import { liveCounter, openSession, toolCall, usageSet } from '../helpers/quota-stack.js'
import { ROOT, startClient, startService, type Service } from '../helpers/stack.js'

const FREE_BYTES = 5_000_000_000
/** Fifteen events of the flood server (64 KiB each and their framing): under one batch. */
const HELD_BYTES = 15 * 65_610
const STREAMS = 40

const AGENT_HEADERS = {
  accept: 'application/json, text/event-stream',
  'content-type': 'application/json',
  'mcp-protocol-version': '2025-06-18',
}

/** Read `res`'s body until it ends or is cut, counting into `got`. */
function drainInto(res: Response, got: { bytes: number; ended: number }): void {
  void (async () => {
    try {
      for await (const chunk of res.body!) got.bytes += (chunk as Uint8Array).length
    } catch {
      // Cut.
    }
    got.ended++
  })()
}

describe('bandwidth quota on responses held open', () => {
  let upstream: Child
  let service: Service
  let cli: Child
  let url: string
  let tunnelId: string

  before(async () => {
    assert.ok(HELD_BYTES < RESPONSE_BATCH_BYTES)
    upstream = startChild(process.execPath, [join(ROOT, 'test/fixtures/flood-sse-server.mjs')], {
      env: { ...process.env, FLOOD_BYTES: String(HELD_BYTES), FLOOD_HOLD: '1' },
    })
    const port = Number((await upstream.waitFor(/listening on (\d+)/))[1])
    service = await startService()
    const tunnel = await service.tunnel('held')
    url = tunnel.url
    tunnelId = tunnel.id
    cli = await startClient(service, tunnel.key, ['--upstream', `http://127.0.0.1:${port}/mcp`])
  })

  after(async () => {
    await cli?.stop()
    await upstream?.stop()
    await service?.close()
  })

  it('counts the bytes of answers held open, and admits no more once the month is past the limit', async () => {
    const session = await openSession(url)
    const start = FREE_BYTES - 64 * 1024
    await usageSet(service, tunnelId, ['--bandwidth-bytes', String(start)])
    const got = { bytes: 0, ended: 0 }
    const aborts: AbortController[] = []
    let admitted = 0
    let refused = 0
    for (let i = 0; i < STREAMS; i++) {
      const abort = new AbortController()
      aborts.push(abort)
      const res = await publicFetch(url, {
        method: 'POST',
        headers: { ...AGENT_HEADERS, 'mcp-session-id': session },
        body: JSON.stringify(toolCall(i + 1, 'flood')),
        signal: abort.signal,
      })
      if (res.status === 429) {
        await res.arrayBuffer()
        refused++
        continue
      }
      assert.equal(res.status, 200, `call ${i + 1}`)
      admitted++
      drainInto(res, got)
    }
    assert.ok(admitted > 0, 'the first call is admitted below the limit')
    // Before, all forty were admitted: their answers, under a batch each, were never counted.
    assert.ok(refused > 0, `${admitted} calls admitted with the month past its limit`)
    try {
      for (
        let i = 0;
        i < 200 && got.bytes < admitted * HELD_BYTES * 0.9 && got.ended < admitted;
        i++
      )
        await new Promise((resolve) => setTimeout(resolve, 50))
      // Let the counters' own batch reach the database.
      await new Promise((resolve) => setTimeout(resolve, 1500))
      const used = await liveCounter(service, tunnelId, 'bandwidth_bytes')
      assert.ok(
        used - start >= got.bytes,
        `the agent received ${got.bytes} bytes; ${used - start} were counted`,
      )
      assert.ok(
        got.bytes < RESPONSE_OVERAGE_BYTES + 4 * RESPONSE_BATCH_BYTES,
        `${got.bytes} bytes went to the agent past a limit of ${FREE_BYTES - start} bytes away`,
      )
    } finally {
      for (const abort of aborts) abort.abort()
    }
  })
})
