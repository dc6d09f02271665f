// Closed-loop load: `concurrency` workers, each on its own keep-alive connection, send one small
// JSON-RPC POST, read the whole answer, and send the next at once. A warm-up runs first, for a
// time and for a number of calls; then the calls that complete inside the measuring window give
// the throughput and the latency percentiles.
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
  /** Shortest warm-up before the measuring window opens. */
  readonly warmupMs: number
  /**
   * Calls that must also have ended before the window opens (default none): a process that just
   * started runs its code in V8's interpreter and compiles the busy parts during its first
   * thousands of calls, which a warm-up counted in seconds leaves half done on a slow machine.
   * The warm-up never lasts longer than `WARMUP_CAP_MS` for it.
   */
  readonly warmupCalls?: number
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

/** Longest warm-up `warmupCalls` may ask for: a peer that makes 10 calls a second gets this long. */
export const WARMUP_CAP_MS = 20_000

/** Run closed-loop load against `target`. */
export async function runLoad(target: CallTarget, opts: LoadOptions): Promise<LoadResult> {
  const url = new URL(target.url)
  const path = url.pathname + url.search
  const bodyOf = target.body ?? toolCallBody
  const window = new CallWindow(opts)
  const pool = loopbackPool(url.origin, opts.concurrency)
  const latencies = new LatencyLog()
  let errors = 0
  let firstError: string | null = null
  let nextId = 1
  const fail = (at: number, why: string) => {
    if (window.holds(at)) errors++
    firstError ??= why
  }

  const worker = async () => {
    while (performance.now() < window.endAt) {
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
        } else if (window.holds(t1)) {
          latencies.add(t1 - t0)
        }
      } catch (err) {
        fail(performance.now(), (err as Error).message)
        await sleep(10)
      }
      window.ended()
    }
  }

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

/**
 * The measuring window of a closed loop: it opens once the warm-up has lasted `warmupMs` and seen
 * `warmupCalls` calls end (or after `WARMUP_CAP_MS` whatever the count), starting `opts.meter`,
 * and closes `durationMs` later, stopping it.
 */
class CallWindow {
  /** When the window opened and when it closes (`performance.now()`); Infinity until it opens. */
  startAt = Infinity
  endAt = Infinity
  readonly #opts: LoadOptions
  readonly #begin = performance.now()
  #calls = 0
  #state: 'warming' | 'open' | 'closed' = 'warming'
  readonly #timers: NodeJS.Timeout[] = []

  constructor(opts: LoadOptions) {
    const calls = opts.warmupCalls ?? 0
    if (!(opts.warmupMs >= 0) || !(calls >= 0) || !(opts.durationMs >= 0)) {
      throw new RangeError('warm-up, calls and duration must be 0 or more')
    }
    this.#opts = opts
    this.#timers.push(setTimeout(() => this.#maybeOpen(), opts.warmupMs))
    if ((opts.warmupCalls ?? 0) > 0) {
      this.#timers.push(setTimeout(() => this.#open(), Math.max(opts.warmupMs, WARMUP_CAP_MS)))
    }
  }

  /** Whether a call that ended at `at` ended inside the window. */
  holds(at: number): boolean {
    return at >= this.startAt && at <= this.endAt
  }

  /** Count one call that ended (answered or failed). */
  ended(): void {
    this.#calls++
    this.#maybeOpen()
  }

  close(): void {
    for (const timer of this.#timers) clearTimeout(timer)
    if (this.#state === 'open') this.#opts.meter?.stop()
    this.#state = 'closed'
  }

  #maybeOpen(): void {
    const warmedFor = performance.now() - this.#begin
    if (warmedFor >= this.#opts.warmupMs && this.#calls >= (this.#opts.warmupCalls ?? 0)) {
      this.#open()
    }
  }

  #open(): void {
    if (this.#state !== 'warming') return
    this.#state = 'open'
    this.startAt = performance.now()
    this.endAt = this.startAt + this.#opts.durationMs
    this.#opts.meter?.start()
    this.#timers.push(setTimeout(() => this.close(), this.#opts.durationMs))
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
