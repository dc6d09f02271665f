// Bulk throughput: `concurrency` workers each ask test/fixtures/bulk-server.mjs for a 10 MiB
// body (`{"method":"bulk","params":{"bytes":N}}`), read it to the end, and ask again. Bytes that
// arrive inside the measuring window, divided by its length, give MB/s (10^6 bytes per second);
// each complete transfer also records its duration.
import { setTimeout as sleep } from 'node:timers/promises'
import { meterWindow, type LoadOptions } from './load.js'
import { loopbackPool } from './loopback.js'
import { LatencyLog, percentile } from './percentiles.js'

/** What a transfer cell measured. */
export interface TransferResult {
  readonly megabytesPerSecond: number
  readonly transfers: number
  readonly errors: number
  /** Duration of one whole transfer. */
  readonly p50Ms: number
  readonly p99Ms: number
  readonly firstError: string | null
}

/** Run sequential bulk transfers of `bytes` each from `url` on `opts.concurrency` connections. */
export async function runTransfer(
  url: string,
  bytes: number,
  opts: LoadOptions,
): Promise<TransferResult> {
  const target = new URL(url)
  const path = target.pathname + target.search
  const pool = loopbackPool(target.origin, opts.concurrency)
  const durations = new LatencyLog()
  let windowBytes = 0
  let errors = 0
  let firstError: string | null = null
  let nextId = 1
  const begin = performance.now()
  const startAt = begin + opts.warmupMs
  const endAt = startAt + opts.durationMs
  const inWindow = (t: number) => t >= startAt && t <= endAt

  const transferOnce = async () => {
    const t0 = performance.now()
    const { statusCode, body } = await pool.request({
      path,
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/octet-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: 'bulk', params: { bytes } }),
    })
    let received = 0
    for await (const chunk of body) {
      const n = (chunk as Buffer).length
      received += n
      if (inWindow(performance.now())) windowBytes += n
    }
    const t1 = performance.now()
    if (statusCode !== 200 || received !== bytes) {
      if (inWindow(t1)) errors++
      firstError ??= `HTTP ${statusCode}, ${received} of ${bytes} bytes`
    } else if (inWindow(t1)) {
      durations.add(t1 - t0)
    }
  }

  const worker = async () => {
    while (performance.now() < endAt) {
      try {
        await transferOnce()
      } catch (err) {
        if (inWindow(performance.now())) errors++
        firstError ??= (err as Error).message
        await sleep(10)
      }
    }
  }

  const window = meterWindow(opts)
  try {
    await Promise.all(Array.from({ length: opts.concurrency }, worker))
  } finally {
    window.close()
    await pool.close()
  }
  const sorted = durations.sorted()
  return {
    megabytesPerSecond: windowBytes / 1e6 / (opts.durationMs / 1000),
    transfers: sorted.length,
    errors,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    firstError,
  }
}
