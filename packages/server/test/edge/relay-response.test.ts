/**
 * The edge's relay of a tunnelled response: a real HTTP server answers the agent, a pair of muxes
 * in memory stands for the tunnel. JSON and SSE answers arrive whole, an SSE head leaves before
 * its first event, and an agent that hangs up cancels the call upstream.
 */
import assert from 'node:assert/strict'
import { createServer, request, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { gzipSync } from 'node:zlib'
import {
  ResponseMessages,
  RESET_CODE,
  silentLogger,
  type ClassifiedMessage,
  type HeaderPairs,
  type MuxStream,
  type RequestHead,
} from '@burrow/protocol'
import { memoryTunnel } from '../helpers/memory-tunnel.js'
import { testExchangeRecord } from '../helpers/test-exchange-record.js'
import { relayResponse, type RelayContext } from '../../src/edge/relay-response.js'

const HEAD: RequestHead = { method: 'POST', path: '/mcp', headers: [] }
const settle = () => new Promise((r) => setTimeout(r, 20))

describe('relayResponse', () => {
  let server: Server
  let port: number
  /** The local side of each request, as it arrives. */
  const local: MuxStream[] = []
  let onLocal: (stream: MuxStream) => void = () => {}
  /** What each request's record was told: `answered <status>` or `refused <status>`. */
  const told: string[] = []
  /** Set to make the next response's first `writeHead` throw, as for a head Node refuses. */
  let refuseNextHead = false
  /** How the next answers are shaped (the edge's governance and history), or not at all. */
  let shape: RelayContext['shape'] = null
  /** The gate the next answers pass (a GET stream's live policy), or none. */
  let gate: RelayContext['gate'] = null
  /** Whether a stream refused before any processing is opened again, as the edge does. */
  let retrying = false

  before(async () => {
    const broker = memoryTunnel((stream) => {
      local.push(stream)
      onLocal(stream)
    })
    server = createServer((req, res) => {
      const record = testExchangeRecord({ method: 'POST' })
      record.answered = (status) => void told.push(`answered ${status}`)
      record.refused = (status) => void told.push(`refused ${status}`)
      if (refuseNextHead) {
        refuseNextHead = false
        const writeHead = res.writeHead.bind(res)
        let first = true
        res.writeHead = ((...args: Parameters<typeof res.writeHead>) => {
          if (!first) return writeHead(...args)
          first = false
          throw new Error('invalid head')
        }) as typeof res.writeHead
      }
      req.resume()
      const stream = broker.open(HEAD, Buffer.from('{}'), true)
      const retry = retrying
        ? () => Promise.resolve(broker.open(HEAD, Buffer.from('{}'), true))
        : null
      relayResponse(stream, res, { ids: 7, record, log: silentLogger, shape, gate, retry })
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    port = (server.address() as AddressInfo).port
  })

  after(() => new Promise<void>((r) => server.close(() => r())))

  /** POST to the server; resolves with the response once it is complete. */
  function post(): {
    answered: () => boolean
    done: Promise<{ res: IncomingMessage; text: string }>
  } {
    let answered = false
    const done = new Promise<{ res: IncomingMessage; text: string }>((resolve, reject) => {
      const req = request({ port, host: '127.0.0.1', method: 'POST', path: '/mcp' }, (res) => {
        answered = true
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => (text += chunk))
        res.on('end', () => resolve({ res, text }))
      })
      req.on('error', reject)
      req.end('{}')
    })
    return { answered: () => answered, done }
  }

  it('relays a streamed SSE answer whole', async () => {
    onLocal = (stream) => {
      stream.respond({ status: 200, headers: [['content-type', 'text/event-stream']] })
      stream.write(Buffer.from('data: one\n\n'))
      stream.write(Buffer.from('data: two\n\n'))
      stream.end()
    }
    const { res, text } = await post().done
    assert.equal(res.statusCode, 200)
    assert.equal(res.headers['content-type'], 'text/event-stream')
    assert.equal(res.headers['x-accel-buffering'], 'no')
    assert.equal(text, 'data: one\n\ndata: two\n\n')
  })

  it('drops the head and chunks waiting at the gate when the stream is reset (hostile)', async () => {
    let open: () => void = () => {}
    const shut = new Promise<void>((r) => (open = r))
    let waited = false
    gate = () => {
      if (waited) return true
      waited = true
      return shut
    }
    let reset: () => void = () => {}
    const resetDone = new Promise<void>((r) => (reset = r))
    onLocal = (stream) => {
      stream.respond({ status: 200, headers: [['content-type', 'text/event-stream']] })
      stream.write(Buffer.from('data: {"jsonrpc":"2.0","method":"one"}\n\n'))
      setTimeout(() => {
        stream.reset(RESET_CODE.internal, 'the local server failed')
        reset()
      }, 20)
    }
    try {
      const answer = post().done
      await resetDone
      await settle()
      open()
      const { res, text } = await answer
      assert.equal(res.statusCode, 503, text)
      assert.equal((JSON.parse(text) as { id: unknown }).id, 7, 'the refusal envelope, with the id')
      await settle() // nothing that waited is written after the refusal
    } finally {
      gate = null
    }
  })

  it('opens a refused stream again without the head that waited at the gate (hostile)', async () => {
    let open: () => void = () => {}
    const shut = new Promise<void>((r) => (open = r))
    let waited = false
    gate = () => {
      if (waited) return true
      waited = true
      return shut
    }
    retrying = true
    let refused: () => void = () => {}
    const refusedDone = new Promise<void>((r) => (refused = r))
    let streams = 0
    onLocal = (stream) => {
      if (++streams === 1) {
        // A head, then "refused": the edge opens the request again, and the head that waited
        // for the policy must not answer the agent.
        stream.respond({ status: 500, headers: [['content-type', 'text/event-stream']] })
        setTimeout(() => {
          stream.reset(RESET_CODE.refused, 'moving')
          refused()
        }, 20)
        return
      }
      // The request opened again answers once the gate opened for the first one's head.
      void shut.then(settle).then(() => {
        stream.respond({ status: 200, headers: [['content-type', 'text/event-stream']] })
        stream.write(Buffer.from('data: two\n\n'))
        stream.end()
      })
    }
    try {
      const answer = post().done
      await refusedDone
      await settle() // the reset reaches the edge while the head waits
      open()
      const { res, text } = await answer
      assert.equal(res.statusCode, 200, text)
      assert.equal(text, 'data: two\n\n')
      assert.equal(streams, 2)
    } finally {
      gate = null
      retrying = false
    }
  })

  it('answers a JSON body that came with the head', async () => {
    onLocal = (stream) =>
      stream.respond({ status: 200, headers: [] }, Buffer.from('{"ok":1}'), true)
    const { res, text } = await post().done
    assert.equal(res.statusCode, 200)
    assert.equal(text, '{"ok":1}')
  })

  it('refuses a compressed answer the policy must rewrite, and passes one only tapped', async () => {
    const gzipped = gzipSync('{"jsonrpc":"2.0","id":7,"result":{"tools":[]}}')
    onLocal = (stream) =>
      stream.respond(
        {
          status: 200,
          headers: [
            ['content-type', 'application/json'],
            ['content-encoding', 'gzip'],
          ],
        },
        gzipped,
        true,
      )
    try {
      shape = (kind) => new ResponseMessages({ kind, rewrite: () => null })
      told.length = 0
      const refused = await post().done
      assert.equal(refused.res.statusCode, 502)
      assert.equal(refused.res.headers['x-burrow-error'], 'upstream_unreachable')
      const envelope = JSON.parse(refused.text) as {
        id: unknown
        error: { data: { reason: string } }
      }
      assert.equal(envelope.id, 7)
      assert.match(envelope.error.data.reason, /compressed \(content-encoding: gzip\)/)
      assert.deepEqual(told, ['refused 502'])
      // Only tapped (history), it goes on as it came.
      shape = (kind) => new ResponseMessages({ kind })
      const passed = await new Promise<Buffer>((resolve, reject) => {
        const req = request({ port, host: '127.0.0.1', method: 'POST', path: '/mcp' }, (res) => {
          const chunks: Buffer[] = []
          res.on('data', (c: Buffer) => chunks.push(c))
          res.on('end', () => resolve(Buffer.concat(chunks)))
        })
        req.on('error', reject)
        req.end('{}')
      })
      assert.deepEqual(passed, gzipped)
    } finally {
      shape = null
    }
  })

  it('refuses an answer it must read but cannot: compressed, or neither JSON nor SSE', async () => {
    const respond = (headers: HeaderPairs, status = 200) =>
      (onLocal = (stream) => stream.respond({ status, headers }, Buffer.from('{"x":1}'), true))
    try {
      // Watched (rug-pull protection), not rewritten.
      shape = (kind) => new ResponseMessages({ kind, mustRead: true })
      for (const [headers, reason] of [
        [[['content-encoding', 'br']], /is compressed \(content-encoding: br\)/],
        [[['content-type', 'application/json-x']], /is sent as "application\/json-x"/],
        [[], /is sent as "no content type"/],
        // Some SDKs would read it as SSE where the edge reads JSON.
        [
          [['content-type', 'application/json; x="text/event-stream"']],
          /is labelled both JSON and SSE/,
        ],
      ] as const) {
        respond(headers)
        const { res, text } = await post().done
        assert.equal(res.statusCode, 502, JSON.stringify(headers))
        assert.match(
          (JSON.parse(text) as { error: { data: { reason: string } } }).error.data.reason,
          reason,
        )
      }
      // An error page, and an empty acceptance, are not answers to read.
      respond([['content-type', 'text/html']], 500)
      assert.equal((await post().done).res.statusCode, 500)
      respond([], 202)
      assert.equal((await post().done).res.statusCode, 202)
    } finally {
      shape = null
    }
  })

  it('cuts off an answer that carries a listing its request did not make', async () => {
    const stray = '{"jsonrpc":"2.0","id":8,"result":{"tools":[{"name":"drop_table"}]}}'
    const cuts = (m: ClassifiedMessage) => m.kind === 'response' && m.id !== 7
    const json: HeaderPairs = [['content-type', 'application/json']]
    const sse: HeaderPairs = [['content-type', 'text/event-stream']]
    try {
      shape = (kind) => new ResponseMessages({ kind, cutsOn: cuts, mustRead: true })
      // Whole with its head: refused with the request's id.
      onLocal = (stream) => stream.respond({ status: 200, headers: json }, Buffer.from(stray), true)
      told.length = 0
      const refused = await post().done
      assert.equal(refused.res.statusCode, 502)
      assert.doesNotMatch(refused.text, /drop_table/)
      const envelope = JSON.parse(refused.text) as {
        id: unknown
        error: { data: { reason: string } }
      }
      assert.equal(envelope.id, 7)
      assert.match(envelope.error.data.reason, /answer to a tools\/list this request did not make/)
      assert.deepEqual(told, ['refused 502'])
      // Streamed: the agent's answer ends short, without the chunk that completed it.
      for (const [headers, chunks] of [
        [json, [stray.slice(0, 30), stray.slice(30)]],
        [
          sse,
          [
            'data: {"jsonrpc":"2.0","method":"notifications/message"}\n\n',
            `data: ${stray}\n`,
            '\n',
          ],
        ],
      ] as const) {
        let resetCode: (code: number) => void = () => {}
        const reset = new Promise<number>((resolve) => (resetCode = resolve))
        onLocal = (stream) => {
          stream.onReset = (code) => resetCode(code)
          stream.respond({ status: 200, headers })
          void (async () => {
            for (const chunk of chunks) {
              stream.write(Buffer.from(chunk))
              await settle()
            }
            stream.end()
          })()
        }
        const seen = await new Promise<{ text: string; complete: boolean }>((resolve) => {
          const req = request({ port, host: '127.0.0.1', method: 'POST', path: '/mcp' }, (res) => {
            let text = ''
            res.setEncoding('utf8')
            res.on('data', (chunk: string) => (text += chunk))
            res.on('close', () => resolve({ text, complete: res.complete }))
          })
          req.on('error', () => {})
          req.end('{}')
        })
        assert.equal(seen.complete, false, 'the answer ends short')
        // All but the chunk that completed the stray: JSON never whole, the event never ended.
        assert.equal(seen.text, chunks.slice(0, -1).join(''))
        // Cut before the server's end (SSE, here), the server is told to stop.
        if (headers === sse) assert.equal(await reset, RESET_CODE.cancel)
      }
    } finally {
      shape = null
    }
  })

  it('where it cuts stray listings, refuses only what agents could still read messages from', async () => {
    const cuts = () => false
    const respond = (headers: HeaderPairs, status = 200) =>
      (onLocal = (stream) => stream.respond({ status, headers }, Buffer.from('{"x":1}'), true))
    try {
      shape = (kind) => new ResponseMessages({ kind, cutsOn: cuts, mustRead: kind !== 'other' })
      for (const [headers, status, refused] of [
        [[['content-type', 'application/octet-stream']], 200, null],
        [
          [
            ['content-type', 'application/octet-stream'],
            ['content-encoding', 'gzip'],
          ],
          200,
          null,
        ],
        [[['content-type', 'text/plain; application/json']], 200, /is sent as/],
        [[['content-type', 'application/jsonx']], 200, /is sent as/],
        [
          [
            ['content-type', 'text/html'],
            ['location', 'https://elsewhere.example/mcp'],
          ],
          307,
          /redirect/,
        ],
        [
          [
            ['content-type', 'application/json'],
            ['content-encoding', 'gzip'],
          ],
          200,
          /compressed/,
        ],
      ] as const) {
        respond(headers, status)
        const { res, text } = await post().done
        const where = JSON.stringify(headers)
        if (refused === null) {
          assert.equal(res.statusCode, status, where)
          continue
        }
        assert.equal(res.statusCode, 502, where)
        assert.match(
          (JSON.parse(text) as { error: { data: { reason: string } } }).error.data.reason,
          refused,
          where,
        )
      }
    } finally {
      shape = null
    }
  })

  it('refuses a rewritten answer it cannot read: not JSON-RPC, two types, a redirect', async () => {
    const answerWith = (headers: HeaderPairs, body: string, status = 200) =>
      (onLocal = (stream) => stream.respond({ status, headers }, Buffer.from(body), true))
    const reasonOf = (text: string) =>
      (JSON.parse(text) as { error: { data: { reason: string } } }).error.data.reason
    const json: HeaderPairs = [['content-type', 'application/json']]
    try {
      shape = (kind) =>
        new ResponseMessages({ kind, rewrite: (m) => ({ ...(m.value as object), rewritten: 1 }) })
      for (const [headers, body, status, reason] of [
        [json, 'event: message\ndata: {}\n\n', 200, /is labelled JSON but is not JSON-RPC/],
        [
          [...json, ['content-type', 'text/event-stream']],
          '{"jsonrpc":"2.0","id":7,"result":{}}',
          200,
          /carries 2 content types/,
        ],
        [[['location', 'https://elsewhere.example/mcp']], '', 307, /is a redirect \(status 307\)/],
      ] as const) {
        answerWith(headers, body, status)
        const { res, text } = await post().done
        assert.equal(res.statusCode, 502, body)
        assert.match(reasonOf(text), reason)
      }
      // A content type named in capitals is read like any other.
      answerWith([['Content-Type', 'application/json']], '{"jsonrpc":"2.0","id":7,"result":{}}')
      const read = await post().done
      assert.equal(read.res.statusCode, 200)
      assert.match(read.text, /"rewritten":1/)
      // An error that is not JSON-RPC, and an answer with no body, go on.
      answerWith(json, '{"detail":"Not Found"}', 404)
      assert.equal((await post().done).res.statusCode, 404)
      onLocal = (stream) => stream.respond({ status: 200, headers: [] }, undefined, true)
      assert.equal((await post().done).res.statusCode, 200)
    } finally {
      shape = null
    }
  })

  it('redacts an error page as text, and the answer to notifications it need not read', async () => {
    const mask = (t: string) => (t.includes('sk-1') ? t.replaceAll('sk-1', '[REDACTED]') : null)
    const answerWith = (headers: HeaderPairs, chunks: string[], status: number) =>
      (onLocal = (stream) => {
        stream.respond({ status, headers })
        for (const c of chunks) stream.write(Buffer.from(c))
        stream.end()
      })
    const html: HeaderPairs = [['content-type', 'text/html']]
    try {
      shape = (kind) => new ResponseMessages({ kind, rewrite: () => null, rewriteText: mask })
      answerWith(html, ['<pre>Error: sk-', '1 at db.connect</pre>'], 500)
      const page = await post().done
      assert.equal(page.res.statusCode, 500)
      assert.equal(page.text, '<pre>Error: [REDACTED] at db.connect</pre>')
      assert.equal(page.res.headers['content-length'], String(page.text.length))
      // A successful answer of another type to a request is still refused.
      answerWith(html, ['sk-1'], 200)
      assert.equal((await post().done).res.statusCode, 502)
      // Answering notifications only, it need not be read: redacted as text when it can be,
      // passed as it came when it is compressed.
      shape = (kind) =>
        new ResponseMessages({ kind, rewrite: () => null, rewriteText: mask, mustRead: false })
      answerWith([['content-type', 'text/plain']], ['accepted sk-1'], 200)
      const accepted = await post().done
      assert.equal(accepted.res.statusCode, 200)
      assert.equal(accepted.text, 'accepted [REDACTED]')
      answerWith([['content-type', 'text/plain']], ['moved sk-1'], 307)
      assert.equal((await post().done).text, 'moved [REDACTED]')
      answerWith([['content-encoding', 'gzip']], ['sk-1'], 200)
      const coded = await post().done
      assert.equal(coded.res.statusCode, 200)
      assert.equal(coded.text, 'sk-1')
    } finally {
      shape = null
    }
  })

  it('refuses an answer it must read in a charset that writes ASCII otherwise (UTF-16)', async () => {
    // Read as UTF-8, a secret in UTF-16 passed redaction whole, labelled UTF-8 for the agent,
    // which dropped the NULs (found by a review). Latin-1 writes ASCII as ASCII: still read.
    const mask = (t: string) => (t.includes('sk-1') ? t.replaceAll('sk-1', '[REDACTED]') : null)
    const answerWith = (type: string, body: Buffer, status: number) =>
      (onLocal = (stream) => {
        stream.respond({ status, headers: [['content-type', type]] })
        stream.write(body)
        stream.end()
      })
    try {
      shape = (kind) => new ResponseMessages({ kind, rewrite: () => null, rewriteText: mask })
      for (const type of [
        'text/plain; charset=utf-16le',
        'application/json; charset="UTF-16"',
        'text/plain; charset=utf-8; charset=utf-7',
      ]) {
        answerWith(type, Buffer.from('failed: sk-1', 'utf16le'), 500)
        const refused = await post().done
        assert.equal(refused.res.statusCode, 502, type)
        assert.ok(!refused.text.replace(/\0/g, '').includes('sk-1'), refused.text)
        assert.match(refused.text, /is in the charset/)
      }
      answerWith('text/plain; charset=iso-8859-1', Buffer.from('failed: sk-1', 'latin1'), 500)
      const latin = await post().done
      assert.equal(latin.res.statusCode, 500)
      assert.equal(latin.text, 'failed: [REDACTED]')
    } finally {
      shape = null
    }
  })

  it('tells the agent a rewritten answer is UTF-8, whatever charset the server named', async () => {
    const latin: HeaderPairs = [['content-type', 'text/event-stream; charset=iso-8859-1']]
    onLocal = (stream) => {
      stream.respond({ status: 200, headers: latin })
      stream.write(Buffer.from('data: {"jsonrpc":"2.0","id":7,"result":{}}\n\n'))
      stream.end()
    }
    try {
      shape = (kind) => new ResponseMessages({ kind, rewrite: () => null })
      const rewritten = await post().done
      assert.equal(rewritten.res.headers['content-type'], 'text/event-stream; charset=utf-8')
      // Only tapped, the bytes go on as they came, and so does what they are said to be.
      shape = (kind) => new ResponseMessages({ kind })
      const tapped = await post().done
      assert.equal(tapped.res.headers['content-type'], 'text/event-stream; charset=iso-8859-1')
      // Where stray listings are cut, a tapped stream is read as UTF-8 too (an agent decoding
      // UTF-16 would read events the edge never saw).
      shape = (kind) => new ResponseMessages({ kind, cutsOn: () => false })
      const watched = await post().done
      assert.equal(watched.res.headers['content-type'], 'text/event-stream; charset=utf-8')
    } finally {
      shape = null
    }
  })

  it("sends a silent SSE answer's head at once, and its events as they come", async () => {
    let later: MuxStream | undefined
    onLocal = (stream) => {
      later = stream
      stream.respond({ status: 200, headers: [['content-type', 'text/event-stream']] })
    }
    const call = post()
    while (!call.answered()) await settle()
    later!.write(Buffer.from('data: late\n\n'))
    later!.end()
    const { res, text } = await call.done
    assert.equal(res.headers['content-type'], 'text/event-stream')
    assert.equal(text, 'data: late\n\n')
  })

  it('notes a head the response refused as a failure (502 with the id), never as the answer', async () => {
    for (const fin of [true, false]) {
      told.length = 0
      refuseNextHead = true
      onLocal = (stream) => stream.respond({ status: 200, headers: [] }, Buffer.from('{}'), fin)
      const { res, text } = await post().done
      assert.equal(res.statusCode, 502)
      assert.equal((JSON.parse(text) as { id: unknown }).id, 7)
      assert.deepEqual(told, ['refused 502'])
    }
  })

  it('cancels the call upstream when the agent hangs up', async () => {
    let reset: { code: number; reason: string } | undefined
    onLocal = (stream) => {
      stream.onReset = (code, reason) => (reset = { code, reason })
    }
    const before = local.length
    const req = request({ port, host: '127.0.0.1', method: 'POST', path: '/mcp' })
    req.on('error', () => {})
    req.end('{}')
    while (local.length === before) await settle()
    req.destroy()
    while (reset === undefined) await settle()
    assert.equal(reset.code, RESET_CODE.cancel)
    assert.match(reset.reason, /agent disconnected/)
  })
})
