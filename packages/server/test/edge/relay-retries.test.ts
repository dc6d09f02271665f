/**
 * A request the tunnel client refuses before processing is sent again (the client may be moving to
 * a new connection), up to 22 times: each sending must not leave listeners on the agent's
 * response. Each added a 'close' and a 'drain' listener or more, so a client refusing every
 * request made Node warn of a leak (MaxListenersExceededWarning) for each one, a log line per
 * request, and kept each sending's writer until the answer ended.
 */
import assert from 'node:assert/strict'
import { createServer, request, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, it } from 'node:test'
import { RESET_CODE, silentLogger, type MuxStream, type RequestHead } from '@burrow/protocol'
import { memoryTunnel } from '../helpers/memory-tunnel.js'
import { testExchangeRecord } from '../helpers/test-exchange-record.js'
import { relayResponse } from '../../src/edge/relay-response.js'

const HEAD: RequestHead = { method: 'POST', path: '/mcp', headers: [] }
/** How often the client refuses before it answers: the most the edge sends a request. */
const REFUSALS = 21

let server: Server
let port: number
let response: ServerResponse | null = null
/** Listeners on the agent's response when the last sending arrived. */
let listeners = { close: 0, drain: 0 }
const warnings: string[] = []
const onWarning = (w: Error) => void warnings.push(w.name)

before(async () => {
  process.on('warning', onWarning)
  let opened = 0
  const broker = memoryTunnel((stream: MuxStream) => {
    if (++opened <= REFUSALS) return stream.reset(RESET_CODE.refused, 'moving')
    listeners = { close: response!.listenerCount('close'), drain: response!.listenerCount('drain') }
    stream.respond({ status: 200, headers: [['content-type', 'application/json']] })
    stream.write(Buffer.from('{"jsonrpc":"2.0","id":7,"result":{}}'))
    stream.end()
  })
  server = createServer((req, res) => {
    response = res
    req.resume()
    const open = () => broker.open(HEAD, Buffer.from('{}'), true)
    relayResponse(open(), res, {
      ids: 7,
      record: testExchangeRecord({ method: 'POST' }),
      log: silentLogger,
      retry: () => Promise.resolve(open()),
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  port = (server.address() as AddressInfo).port
})

after(async () => {
  process.off('warning', onWarning)
  await new Promise<void>((r) => server.close(() => r()))
})

it("adds no listener to the agent's response for each sending of a refused request", async () => {
  const text = await new Promise<string>((resolve, reject) => {
    const req = request({ port, host: '127.0.0.1', method: 'POST', path: '/mcp' }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (body += chunk))
      res.on('end', () => resolve(body))
    })
    req.on('error', reject)
    req.end('{}')
  })
  assert.equal(text, '{"jsonrpc":"2.0","id":7,"result":{}}')
  // Node's own, and one for the relay: however often the request was sent.
  assert.ok(listeners.close <= 3, `${listeners.close} 'close' listeners`)
  assert.ok(listeners.drain <= 1, `${listeners.drain} 'drain' listeners`)
  await new Promise((r) => setImmediate(r))
  assert.deepEqual(warnings, [])
})
