// What the relay writes when a local server's answer can never carry the answers an agent's
// requests wait for: a 202 to a POST holding requests becomes the refusal envelope (502) with
// their ids, while a 202 to notifications and answers passes as it came; an SSE answer that ends
// or breaks before an answer ends with an error event answering each request it left, unless
// the agent can resume it. Before, the agent was left waiting for its own timeout.
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { createServer, type ServerResponse, type Server } from 'node:http'
import { after, before, describe, it } from 'node:test'
import { SseParser, silentLogger } from '@burrow/protocol'
import { HttpRelay } from '../../src/relay/http-relay.js'
import type { LocalRequest, LocalResponse } from '../../src/relay/local-exchange.js'

class Recorder implements LocalResponse {
  status = 0
  headers: Readonly<Record<string, string | readonly string[]>> = {}
  chunks: Buffer[] = []
  ended = false
  destroyed: string | null = null
  get closed(): boolean {
    return this.ended || this.destroyed !== null
  }
  get body(): string {
    return Buffer.concat(this.chunks).toString()
  }
  writeHead(status: number, headers: Readonly<Record<string, string | readonly string[]>>): void {
    this.status = status
    this.headers = headers
  }
  write(chunk: Uint8Array): boolean {
    this.chunks.push(Buffer.from(chunk))
    return true
  }
  end(): void {
    this.ended = true
  }
  onDrain(): void {}
  destroy(reason: string): void {
    this.destroyed = reason
  }
}

function post(body: unknown): LocalRequest {
  return {
    method: 'POST',
    path: '/mcp',
    headers: { 'content-type': 'application/json' },
    body: Buffer.from(JSON.stringify(body)),
    signal: new AbortController().signal,
  }
}

const call = (id: number | string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: {} })
const note = { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1 } }

interface Envelope {
  id: unknown
  error: { code: number; message: string; data: { policy_code: string; reason: string } }
}

/** The messages of an SSE body, as an agent's reader dispatches them. */
function messagesOf(body: string): unknown[] {
  const parser = new SseParser()
  return [...parser.push(Buffer.from(body)), ...parser.end()].map(
    (e) => JSON.parse(e.data) as unknown,
  )
}

describe('HttpRelay, answers that carry no answer to a request', () => {
  let server: Server
  let relay: HttpRelay
  let answer: (res: ServerResponse) => void = () => {}

  before(async () => {
    server = createServer((req, res) => {
      req.resume()
      req.on('end', () => answer(res))
    })
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    relay = new HttpRelay(
      `http://127.0.0.1:${(server.address() as { port: number }).port}/mcp`,
      silentLogger,
    )
  })

  after(async () => {
    await relay.close()
    server.closeAllConnections()
    server.close()
  })

  const relayed = async (req: LocalRequest) => {
    const res = new Recorder()
    await relay.handle(req, res)
    return res
  }

  it('passes a 202 to notifications and to answers as it came', async () => {
    answer = (res) => void res.writeHead(202).end()
    for (const body of [note, { jsonrpc: '2.0', id: 9, result: {} }]) {
      const res = await relayed(post(body))
      assert.equal(res.status, 202)
      assert.equal(res.body, '')
      assert.ok(res.ended)
    }
  })

  it('answers a request accepted with 202 with the envelope carrying its id, whatever its body', async () => {
    for (const body of ['', JSON.stringify({ jsonrpc: '2.0', id: 4, result: {} })]) {
      answer = (res) => void res.writeHead(202, { 'content-type': 'application/json' }).end(body)
      const res = await relayed(post(call(4)))
      assert.equal(res.status, 502)
      assert.equal(res.headers['x-burrow-error'], 'upstream_unreachable')
      const envelope = JSON.parse(res.body) as Envelope
      assert.equal(envelope.id, 4)
      assert.equal(envelope.error.code, -32000)
      assert.equal(envelope.error.data.policy_code, 'upstream_unreachable')
      assert.match(
        envelope.error.data.reason,
        /the local MCP server at http:\/\/127\.0\.0\.1:\d+\/mcp answered the request with 202 and no response/,
      )
    }
  })

  it('answers each request of a batch accepted with 202', async () => {
    answer = (res) => void res.writeHead(202).end()
    const res = await relayed(post([call(5), note, call('a')]))
    assert.equal(res.status, 502)
    const envelopes = JSON.parse(res.body) as Envelope[]
    assert.deepEqual(
      envelopes.map((e) => e.id),
      [5, 'a'],
    )
  })

  it('ends an SSE answer that ended without the answer with an error event for the request', async () => {
    // Small (a length given: read whole) and streamed alike; the length no longer holds.
    for (const length of [true, false]) {
      const sent = `data: ${JSON.stringify(note)}\n\n`
      answer = (res) => {
        const headers: Record<string, string> = { 'content-type': 'text/event-stream' }
        if (length) headers['content-length'] = String(sent.length)
        res.writeHead(200, headers).end(sent)
      }
      const res = await relayed(post(call(6)))
      assert.equal(res.status, 200)
      assert.equal(res.headers['content-length'], undefined)
      assert.ok(res.ended)
      assert.equal(res.destroyed, null)
      assert.ok(res.body.startsWith(sent), "the server's events pass first")
      const [, error] = messagesOf(res.body) as [unknown, Envelope]
      assert.equal(error.id, 6)
      assert.equal(error.error.code, -32000)
      assert.equal(
        error.error.message,
        'the local server ended its response stream before the answer',
      )
    }
  })

  it('ends an SSE answer that broke before the answer with an error event, after a blank line', async () => {
    answer = (res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write('data: {"jsonrpc":"2.0","id":7,"res', () => res.socket?.destroy())
    }
    const res = await relayed(post(call(7)))
    assert.equal(res.status, 200)
    assert.ok(res.ended)
    assert.equal(res.destroyed, null, 'not cut off: the agent reads its answer')
    const parser = new SseParser()
    const events = [...parser.push(Buffer.from(res.body)), ...parser.end()]
    const error = JSON.parse(events.at(-1)!.data) as Envelope
    assert.equal(error.id, 7)
    assert.match(error.error.message, /broke off its response stream before the answer/)
  })

  it('passes an SSE answer that answered, or that the agent can resume, as it came', async () => {
    for (const sent of [
      `data: ${JSON.stringify(note)}\n\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: '8', result: {} })}\n\n`,
      'id: e1\nretry: 10\ndata: \n\n',
    ]) {
      answer = (res) => void res.writeHead(200, { 'content-type': 'text/event-stream' }).end(sent)
      const res = await relayed(post(call(8)))
      assert.equal(res.body, sent)
    }
  })

  it('passes an SSE answer to notifications as it came', async () => {
    answer = (res) => void res.writeHead(200, { 'content-type': 'text/event-stream' }).end()
    const res = await relayed(post(note))
    assert.equal(res.status, 200)
    assert.equal(res.body, '')
  })
})
