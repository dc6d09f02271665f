// Closed-loop load: `concurrency` workers, each on its own keep-alive connection, send one small
// JSON-RPC POST, read the whole answer, and send the next at once. A warm-up runs first; then the
// calls that complete inside the measuring window give the throughput and the latency percentiles.
import { setTimeout as sleep } from 'node:timers/promises'
import { loopbackPool } from './loopback.js'
import { LatencyLog, percentile } from './percentiles.js'

/** Where the calls go. */
export interface CallTarget {
  /** Full URL of the MCP endpoint, e.g. `http://rpc--bench.localhost:7100/mcp`. */
  readonly url: string
  /** Headers of every call (content type, Accept, session headers). */
  readonly headers: Readonly<Record<string, string>>
  /** The body of the call with JSON-RPC id `id`; default `toolCallBody`. */
  readonly body?: (id: number) => string
}

/** How long and how hard. */
export interface LoadOptions {
  readonly concurrency: number
  readonly warmupMs: number
  readonly durationMs: number
  /** Started when the measuring window opens, stopped when it closes. */
  readonly meter?: { start(): void; stop(): void }
}

/** What a cell measured. */
export interface LoadResult {
  readonly calls: number
  readonly errors: number
  readonly callsPerSecond: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly firstError: string | null
}

const ARGUMENT = 'benchmark payload, a typical small tool call: 0123456789'

/** The small `tools/call` request (~150 bytes) with JSON-RPC id `id`. */
export function toolCallBody(id: number): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'echo', arguments: { text: ARGUMENT } },
  })
}

/** Run closed-loop load against `target`. */
export async function runLoad(target: CallTarget, opts: LoadOptions): Promise<LoadResult> {
  const url = new URL(target.url)
  const path = url.pathname + url.search
  const bodyOf = target.body ?? toolCallBody
  const pool = loopbackPool(url.origin, opts.concurrency)
  const latencies = new LatencyLog()
  let errors = 0
  let firstError: string | null = null
  let nextId = 1
  const begin = performance.now()
  const startAt = begin + opts.warmupMs
  const endAt = startAt + opts.durationMs
  const fail = (at: number, why: string) => {
    if (at >= startAt && at <= endAt) errors++
    firstError ??= why
  }

  const worker = async () => {
    while (performance.now() < endAt) {
      const t0 = performance.now()
      try {
        const { statusCode, body } = await pool.request({
          path,
          method: 'POST',
          headers: target.headers,
          body: bodyOf(nextId++),
        })
        const text = await body.text()
        const t1 = performance.now()
        if (statusCode !== 200 || !text.includes('"result"')) {
          fail(t1, `HTTP ${statusCode}: ${text.slice(0, 200)}`)
        } else if (t1 >= startAt && t1 <= endAt) {
          latencies.add(t1 - t0)
        }
      } catch (err) {
        fail(performance.now(), (err as Error).message)
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
  const sorted = latencies.sorted()
  return {
    calls: sorted.length,
    errors,
    callsPerSecond: sorted.length / (opts.durationMs / 1000),
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    firstError,
  }
}

/** Start `opts.meter` after the warm-up and stop it when the window ends (or on `close`). */
export function meterWindow(opts: Omit<LoadOptions, 'concurrency'>): { close(): void } {
  let state: 'waiting' | 'running' | 'done' = 'waiting'
  const stop = () => {
    if (state === 'running') opts.meter?.stop()
    state = 'done'
  }
  const startTimer = setTimeout(() => {
    if (state !== 'waiting') return
    state = 'running'
    opts.meter?.start()
  }, opts.warmupMs)
  const stopTimer = setTimeout(stop, opts.warmupMs + opts.durationMs)
  return {
    close() {
      clearTimeout(startTimer)
      clearTimeout(stopTimer)
      stop()
    },
  }
}
