/**
 * What the bandwidth quota counts of a tunnelled answer: every byte that came through the tunnel,
 * whatever of it reached the agent. Before, the meter counted what was written to the agent, and
 * SSE events an answer the policy rewrites (redaction, tool filtering) dropped (past the parser's
 * bound, or past the node's budget of copies) went uncounted: a local server could send a GET
 * stream of such events into burrowd without bound, never counted and so never cut (found by a
 * hostile review).
 */
import assert from 'node:assert/strict'
import { createServer, request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { ResponseMessages, silentLogger, type MuxStream, type RequestHead } from '@burrow/protocol'
import { memoryTunnel } from '../helpers/memory-tunnel.js'
import { testExchangeRecord } from '../helpers/test-exchange-record.js'
import { relayResponse, type RelayContext } from '../../src/edge/relay-response.js'

const HEAD: RequestHead = { method: 'GET', path: '/mcp', headers: [] }
const SSE = [['content-type', 'text/event-stream']] as [string, string][]
const EVENT = Buffer.from(
  `data: {"jsonrpc":"2.0","method":"notifications/message","params":{"data":"${'x'.repeat(64 * 1024)}"}}\n\n`,
)
/** Events the local server sends on each answer (within the tunnel's first window). */
const EVENTS = 8

describe('relayResponse meters what the tunnel sent', () => {
  let server: Server
  let port: number
  let onLocal: (stream: MuxStream) => void = () => {}
  let shape: RelayContext['shape'] = null
  /** Bytes the meter of the last exchange was given. */
  let metered = { added: 0 }
  let finished: () => void = () => {}

  before(async () => {
    server = createServer((req, res) => {
      // A tunnel of its own for each answer (in memory, nothing says its bytes left).
      const broker = memoryTunnel((stream) => onLocal(stream))
      const record = testExchangeRecord()
      const meter = (metered = { added: 0 })
      record.meterWith({ add: (n) => void (meter.added += n), finish: () => finished() })
      res.once('close', () => record.closed())
      req.resume()
      relayResponse(broker.open(HEAD, Buffer.from('{}'), true), res, {
        ids: null,
        record,
        log: silentLogger,
        shape,
      })
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    port = (server.address() as AddressInfo).port
  })

  after(() => new Promise<void>((r) => server.close(() => r())))

  /** GET through the relay; the bytes of the body the agent received. */
  async function get(): Promise<number> {
    const done = new Promise<void>((resolve) => (finished = resolve))
    const got = await new Promise<number>((resolve, reject) => {
      const req = request({ port, host: '127.0.0.1', method: 'GET', path: '/mcp' }, (res) => {
        let n = 0
        res.on('data', (chunk: Buffer) => (n += chunk.length))
        res.on('end', () => resolve(n))
      })
      req.on('error', reject)
      req.end()
    })
    await done
    return got
  }

  const sendEvents = (stream: MuxStream) => {
    stream.respond({ status: 200, headers: SSE })
    for (let i = 0; i < EVENTS; i++) stream.write(EVENT)
    stream.end()
  }

  it('counts the events a rewriting policy dropped', async () => {
    onLocal = sendEvents
    // The node's budget of copies is spent: every event to rewrite is dropped.
    const held = { take: () => false, give: () => {} }
    shape = (kind) => new ResponseMessages({ kind, rewrite: () => null, held })
    try {
      const got = await get()
      assert.ok(got < EVENT.length, `the agent received ${got} bytes of dropped events`)
      assert.ok(
        metered.added >= EVENTS * EVENT.length,
        `the meter counted ${metered.added} bytes of the ${EVENTS * EVENT.length} sent`,
      )
    } finally {
      shape = null
    }
  })

  it('counts what a rewriting policy makes of an answer where that is more than came', async () => {
    // Redaction may write more than it read ("a" becomes "[REDACTED:pattern]"): the meter counted
    // only what came through the tunnel, and the difference crossed the edge uncounted (found by
    // a review).
    onLocal = sendEvents
    const grown = (m: { readonly value: unknown }): object => {
      const value = m.value as { params?: { data?: string } }
      return { ...value, params: { data: (value.params?.data ?? '').repeat(3) } }
    }
    shape = (kind) => new ResponseMessages({ kind, rewrite: grown })
    try {
      const got = await get()
      assert.ok(got > 2 * EVENTS * EVENT.length, `the agent received ${got} bytes`)
      assert.ok(metered.added >= got, `the meter counted ${metered.added} of the ${got} sent`)
    } finally {
      shape = null
    }
  })

  it('counts an answer passed as it came once', async () => {
    onLocal = sendEvents
    const got = await get()
    assert.equal(got, EVENTS * EVENT.length)
    // The head counts too (responseHeadBytes); the body once.
    assert.ok(metered.added >= got && metered.added < got + 1024, `${metered.added} for ${got}`)
  })
})
