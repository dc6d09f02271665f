/**
 * A call the edge answers itself while its stream still waits for the tunnel client (its access
 * was taken away meanwhile, end-revoked.ts; the bandwidth quota cut it, cut-response.ts): the
 * stream is reset, so a client that never answers and never reads keeps nothing of it. Before,
 * only an agent hanging up reset it; an answer the edge wrote left the stream open, with what
 * waited of its body queued, until the tunnel connection closed.
 */
import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { RESET_CODE, silentLogger, type MuxStream, type ResetCode } from '@burrow/protocol'
import { sendRefusal } from '../../src/http/send-refusal.js'
import { relayResponse } from '../../src/edge/relay-response.js'
import { edgeRequest } from '../helpers/edge-request.js'
import { memoryTunnel } from '../helpers/memory-tunnel.js'
import { testExchangeRecord } from '../helpers/test-exchange-record.js'

describe('a call the edge answers while its stream waits', () => {
  let server: Server
  let port: number
  const resets: ResetCode[] = []
  let reached: () => void = () => {}
  // A tunnel client that neither reads nor answers.
  const broker = memoryTunnel((stream: MuxStream) => {
    stream.onReset = (code) => resets.push(code)
    reached()
  })

  before(async () => {
    server = createServer((req, res) => {
      req.resume()
      const stream = broker.open({ method: 'POST', path: '/mcp', headers: [] })
      stream.write(Buffer.alloc(1024 * 1024, 0x20))
      stream.end()
      const record = testExchangeRecord({ method: 'POST' })
      relayResponse(stream, res, { ids: 7, record, log: silentLogger })
      // Answered by the edge once the client has the request, as a revoked call is.
      reached = () =>
        sendRefusal(res, 'access_denied', 'access revoked', 'no longer allowed', { id: 7 })
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    port = (server.address() as AddressInfo).port
  })
  after(() => new Promise<void>((r) => server.close(() => r())))

  it('resets the stream, and keeps nothing of the body queued', async () => {
    const answer = await edgeRequest(port, 'edge.test', { method: 'POST', body: '{}' })
    assert.equal(answer.status, 403)
    for (let i = 0; i < 50 && resets.length === 0; i++) await new Promise((r) => setImmediate(r))
    assert.deepEqual(resets, [RESET_CODE.cancel])
    assert.equal(broker.streamCount, 0)
    assert.equal(broker.queuedBytes, 0)
  })
})
