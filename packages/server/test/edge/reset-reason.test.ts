/**
 * The reason a tunnel client gives when it resets a stream reaches the agent in the refusal, cut
 * short: it is the client's to write (4 KiB a reset), and the refusal is counted nowhere, so a
 * client and an agent in league moved 4 KiB per bodiless GET past the bandwidth quota, which
 * counted only the GET's head (found by a hostile review).
 */
import assert from 'node:assert/strict'
import { createServer, request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { RESET_CODE, silentLogger, type RequestHead } from '@burrow/protocol'
import { memoryTunnel } from '../helpers/memory-tunnel.js'
import { testExchangeRecord } from '../helpers/test-exchange-record.js'
import { MAX_RESET_REASON_CHARS, relayResponse } from '../../src/edge/relay-response.js'

const HEAD: RequestHead = { method: 'GET', path: '/mcp', headers: [] }

describe('a reset reason from the tunnel client', () => {
  let server: Server
  let port: number
  let code: number = RESET_CODE.upstream

  before(async () => {
    const broker = memoryTunnel((stream) => stream.reset(code as 1, 'x'.repeat(1024)))
    server = createServer((req, res) => {
      const record = testExchangeRecord()
      req.resume()
      relayResponse(broker.open(HEAD, undefined, true), res, {
        ids: null,
        record,
        log: silentLogger,
      })
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    port = (server.address() as AddressInfo).port
  })

  after(() => new Promise<void>((r) => server.close(() => r())))

  const get = () =>
    new Promise<string>((resolve, reject) => {
      const req = request({ port, host: '127.0.0.1', path: '/mcp' }, (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => (text += chunk))
        res.on('end', () => resolve(text))
      })
      req.on('error', reject)
      req.end()
    })

  for (const reset of [RESET_CODE.upstream, RESET_CODE.internal]) {
    it(`reaches the agent cut short (code ${reset})`, async () => {
      code = reset
      const text = await get()
      const longest = /x+/.exec(text)?.[0].length ?? 0
      assert.ok(longest > 0, text)
      assert.ok(longest <= MAX_RESET_REASON_CHARS, `${longest} characters of the reason reached it`)
    })
  }
})
