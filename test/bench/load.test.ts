import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, test } from 'node:test'
import { loadBenchConfig } from '../../bench/config.js'
import { runLoad, type LoadOptions } from '../../bench/load.js'

let server: Server
let answered = 0
let url = ''

before(async () => {
  server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      answered++
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end('{"jsonrpc":"2.0","id":1,"result":{}}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`
})

after(() => new Promise<void>((resolve) => server.close(() => resolve())))

/** Run a cell against the test server, noting how many calls it had answered at the meter's start. */
async function measured(opts: Omit<LoadOptions, 'meter'>) {
  answered = 0
  const seen = { atStart: -1, atStop: -1 }
  const result = await runLoad(
    { url, headers: { 'content-type': 'application/json' } },
    {
      ...opts,
      meter: { start: () => (seen.atStart = answered), stop: () => (seen.atStop = answered) },
    },
  )
  return { result, ...seen }
}

test('the window opens once the warm-up has made its calls, and counts only its own', async () => {
  const { result, atStart, atStop } = await measured({
    concurrency: 4,
    warmupMs: 0,
    warmupCalls: 300,
    durationMs: 200,
  })
  assert.ok(atStart >= 300, `the meter started after ${atStart} calls`)
  assert.ok(atStop >= atStart)
  assert.equal(result.errors, 0)
  assert.ok(result.calls > 0)
  // The warm-up's calls are not in the result: at most the window's, and the few in flight.
  assert.ok(result.calls <= answered - atStart + 4, `${result.calls} of ${answered}`)
})

test('without a call count the window opens after the warm-up time alone', async () => {
  const { result, atStart } = await measured({ concurrency: 1, warmupMs: 0, durationMs: 100 })
  assert.ok(atStart >= 0)
  assert.ok(result.calls > 0)
})

test('a warm-up that could never end is refused before any call', async () => {
  for (const bad of [{ warmupCalls: Number.NaN }, { warmupCalls: -1 }, { warmupMs: -5 }]) {
    answered = 0
    await assert.rejects(
      runLoad({ url, headers: {} }, { concurrency: 1, warmupMs: 0, durationMs: 10, ...bad }),
      RangeError,
    )
    assert.equal(answered, 0)
  }
})

test('BENCH_WARMUP_CALLS: a whole number, 0 allowed, blank for the default', () => {
  assert.equal(loadBenchConfig({}).warmupCalls, 10_000)
  assert.equal(loadBenchConfig({ BENCH_WARMUP_CALLS: ' ' }).warmupCalls, 10_000)
  assert.equal(loadBenchConfig({ BENCH_WARMUP_CALLS: '0' }).warmupCalls, 0)
  assert.equal(loadBenchConfig({ BENCH_WARMUP_CALLS: '2500' }).warmupCalls, 2500)
  for (const bad of ['-1', '1.5', 'many']) {
    assert.throws(
      () => loadBenchConfig({ BENCH_WARMUP_CALLS: bad }),
      /BENCH_WARMUP_CALLS=".*" must be a whole number, 0 or more \(default 10000\)/,
    )
  }
})
