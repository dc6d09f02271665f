// The HTTP relay binds the requestStates a local 2026-07-28 server hands out (in JSON answers and
// in SSE streams) to the agent the edge named in Burrow-Agent: another agent presenting one is
// refused with a JSON-RPC error for its own request's id, and its request never reaches the
// server; the agent it was given to, and callers on public tunnels, go through.
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import { after, before, describe, it } from 'node:test'
import { silentLogger } from '@burrow/protocol'
import { HttpRelay } from '../../src/relay/http-relay.js'
import type { LocalRequest, LocalResponse } from '../../src/relay/local-exchange.js'

class Recorder implements LocalResponse {
  status = 0
  headers: Readonly<Record<string, string | readonly string[]>> = {}
  chunks: Buffer[] = []
  ended = false
  get closed(): boolean {
    return this.ended
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
}

/** A tools/call as agent `agent` (none: a public tunnel), resuming with `state` when given. */
function call(
  id: number,
  agent: string | undefined,
  state?: string,
  answer = 'json',
): LocalRequest {
  const params: Record<string, unknown> = { name: 'ask', arguments: {} }
  if (state !== undefined) Object.assign(params, { requestState: state, inputResponses: {} })
  return {
    method: 'POST',
    path: '/mcp',
    headers: {
      'content-type': 'application/json',
      'x-answer': answer,
      ...(agent === undefined ? {} : { 'burrow-agent': agent }),
    },
    body: Buffer.from(JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params })),
    signal: new AbortController().signal,
  }
}

describe('HttpRelay and the requestStates of a 2026-07-28 server', () => {
  let server: Server
  let port: number
  let issued = 0
  /** The requestStates the server was presented, in order. */
  const presented: string[] = []

  before(async () => {
    // Asks for input with a new state, and answers a retry with the state it presents: as JSON,
    // or as an SSE stream (a progress notification first, each event written in pieces).
    server = createServer((req, res) => {
      let text = ''
      req.on('data', (c: Buffer) => (text += c.toString()))
      req.on('end', () => {
        const message = JSON.parse(text) as { id: number; params: { requestState?: string } }
        const state = message.params.requestState
        if (state !== undefined) presented.push(state)
        const result =
          state === undefined
            ? { resultType: 'input_required', inputRequests: {}, requestState: `s${++issued}` }
            : { content: [{ type: 'text', text: `resumed ${state}` }] }
        const answer = JSON.stringify({ jsonrpc: '2.0', id: message.id, result })
        if (req.headers['x-answer'] !== 'sse') {
          res.writeHead(200, { 'content-type': 'application/json' })
          res.end(answer)
          return
        }
        res.writeHead(200, { 'content-type': 'text/event-stream' })
        const progress = '{"jsonrpc":"2.0","method":"notifications/progress","params":{}}'
        const stream = `data: ${progress}\n\ndata: ${answer}\n\n`
        for (let i = 0; i < stream.length; i += 10) res.write(stream.slice(i, i + 10))
        res.end()
      })
    })
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    port = (server.address() as { port: number }).port
  })

  after(() => server.close())

  /** Send `req` through `relay`; the status and the parsed answer (the last SSE event's). */
  async function send(relay: HttpRelay, req: LocalRequest) {
    const res = new Recorder()
    await relay.handle(req, res)
    const data = res.body.split('\n').filter((line) => line.startsWith('data: '))
    const text = data.length > 0 ? data[data.length - 1]!.slice(6) : res.body
    return {
      status: res.status,
      answer: JSON.parse(text) as {
        id: number
        result?: { requestState?: string; content?: { text: string }[] }
        error?: { code: number; message: string }
      },
    }
  }

  for (const answer of ['json', 'sse']) {
    it(`refuses another agent a state handed out in ${answer}, and lets its agent resume`, async () => {
      const relay = new HttpRelay(`http://127.0.0.1:${port}/mcp`, silentLogger)
      try {
        const first = await send(relay, call(1, 'token:a', undefined, answer))
        const state = first.answer.result!.requestState!
        assert.match(state, /^s\d+$/)
        const before = presented.length

        const stolen = await send(relay, call(2, 'token:b', state, answer))
        assert.equal(stolen.status, 400)
        assert.equal(stolen.answer.id, 2, "the refusal answers b's request")
        assert.equal(stolen.answer.error!.code, -32602)
        assert.match(stolen.answer.error!.message, /requestState/)
        assert.equal(presented.length, before, 'the server never saw it')

        const own = await send(relay, call(3, 'token:a', state, answer))
        assert.equal(own.status, 200)
        assert.equal(own.answer.result!.content![0]!.text, `resumed ${state}`)
      } finally {
        await relay.close()
      }
    })
  }

  it('refuses an agent a state the server never handed out', async () => {
    const relay = new HttpRelay(`http://127.0.0.1:${port}/mcp`, silentLogger)
    try {
      const before = presented.length
      const forged = await send(relay, call(4, 'token:a', 's999999'))
      assert.equal(forged.status, 400)
      assert.equal(forged.answer.id, 4)
      assert.equal(presented.length, before)
    } finally {
      await relay.close()
    }
  })

  it('binds nothing on a public tunnel, where no agent is named', async () => {
    const relay = new HttpRelay(`http://127.0.0.1:${port}/mcp`, silentLogger)
    try {
      const first = await send(relay, call(5, undefined))
      const state = first.answer.result!.requestState!
      const again = await send(relay, call(6, undefined, state))
      assert.equal(again.answer.result!.content![0]!.text, `resumed ${state}`)
    } finally {
      await relay.close()
    }
  })
})
