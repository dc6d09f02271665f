import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, test } from 'node:test'
import { runLoad } from '../../bench/load.js'

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

test('the window opens once the warm-up has made its calls, and counts only its own', async () => {
  answered = 0
  let atStart = -1
  let atStop = -1
  const result = await runLoad(
    { url, headers: { 'content-type': 'application/json' } },
    {
      concurrency: 4,
      warmupMs: 0,
      warmupCalls: 300,
      durationMs: 200,
      meter: {
        start: () => (atStart = answered),
        stop: () => (atStop = answered),
      },
    },
  )
  assert.ok(atStart >= 300, `the meter started after ${atStart} calls`)
  assert.ok(atStop >= atStart)
  assert.equal(result.errors, 0)
  assert.ok(result.calls > 0)
  // The warm-up's calls are not in the result: at most the window's, and the few in flight.
  assert.ok(result.calls <= answered - atStart + 4, `${result.calls} of ${answered}`)
})

test('without a call count the window opens after the warm-up time alone', async () => {
  answered = 0
  let atStart = -1
  const result = await runLoad(
    { url, headers: { 'content-type': 'application/json' } },
    {
      concurrency: 1,
      warmupMs: 0,
      durationMs: 100,
      meter: { start: () => (atStart = answered), stop: () => {} },
    },
  )
  assert.ok(atStart >= 0)
  assert.ok(result.calls > 0)
})
