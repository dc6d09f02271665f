// The messages of a response: taps on JSON and SSE, rewrites that hold a JSON body and rewrite
// SSE event by event, untouched bytes when nothing changes, and the bound on JSON bodies.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ResponseMessages, responseKind, type ClassifiedMessage } from '../../src/index.js'

const text = (chunks: readonly Uint8Array[]) => Buffer.concat(chunks).toString()

const hideDrop = (m: ClassifiedMessage) => {
  if (m.kind !== 'response') return null
  const result = m.value.result as { tools?: { name: string }[] } | undefined
  if (!result?.tools) return null
  return { ...m.value, result: { ...result, tools: result.tools.filter((t) => t.name !== 'drop') } }
}

describe('ResponseMessages', () => {
  it('tells the kind from the content type', () => {
    assert.equal(responseKind('application/json; charset=utf-8'), 'json')
    assert.equal(responseKind('text/event-stream'), 'sse')
    assert.equal(responseKind('text/html'), 'other')
    assert.equal(responseKind(undefined), 'other')
  })

  it('taps JSON and SSE without changing a byte', () => {
    const seen: unknown[] = []
    const json = new ResponseMessages({ kind: 'json', onMessage: (m) => seen.push(m.value) })
    const body = Buffer.from('{"jsonrpc":"2.0","id":1,"result":{"x":1}}')
    assert.deepEqual(json.push(body.subarray(0, 10)), [body.subarray(0, 10)])
    assert.deepEqual(json.push(body.subarray(10)), [body.subarray(10)])
    assert.deepEqual(json.end(), [])
    const sse = new ResponseMessages({ kind: 'sse', onMessage: (m) => seen.push(m.value) })
    const stream = Buffer.from(': keepalive\nid: 7\ndata: {"jsonrpc":"2.0","method":"n"}\n\n')
    assert.deepEqual(sse.push(stream), [stream])
    assert.equal(seen.length, 2)
  })

  it('rewrites a JSON body once complete, holding it meanwhile', () => {
    const r = new ResponseMessages({ kind: 'json', rewrite: hideDrop })
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 2,
      result: { tools: [{ name: 'read' }, { name: 'drop' }], nextCursor: 'c' },
    })
    assert.deepEqual(r.push(Buffer.from(body)), [])
    assert.equal(r.holdsBody, true)
    assert.deepEqual(JSON.parse(text(r.end())), {
      jsonrpc: '2.0',
      id: 2,
      result: { tools: [{ name: 'read' }], nextCursor: 'c' },
    })
  })

  it('rewrites SSE event by event, keeping ids and event names', () => {
    const r = new ResponseMessages({ kind: 'sse', rewrite: hideDrop })
    const out = r.push(
      Buffer.from(
        'id: 4\ndata: {"jsonrpc":"2.0","method":"notifications/progress"}\n\n' +
          'event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"drop"}]}}\n\n',
      ),
    )
    assert.equal(
      text(out),
      'id: 4\ndata: {"jsonrpc":"2.0","method":"notifications/progress"}\n\n' +
        'id: 4\ndata: {"jsonrpc":"2.0","id":1,"result":{"tools":[]}}\n\n',
    )
  })

  it('gives a JSON body past the bound back unread, and says so', () => {
    const r = new ResponseMessages({ kind: 'json', rewrite: hideDrop, maxJsonBytes: 10 })
    const body = Buffer.from('{"jsonrpc":"2.0","id":1,"result":{}}')
    assert.deepEqual(text(r.push(body)), body.toString())
    assert.equal(r.overflowed, true)
    assert.deepEqual(r.end(), [])
  })

  it('never forwards an answer it had to rewrite but cannot write back (too deep)', () => {
    // V8 parses any depth but writes back only a few thousand levels.
    const deep = '['.repeat(50_000) + ']'.repeat(50_000)
    const list = `{"jsonrpc":"2.0","id":9,"result":{"tools":[{"name":"drop"},{"name":"read","inputSchema":${deep}}]}}`
    const json = new ResponseMessages({ kind: 'json', rewrite: hideDrop })
    json.push(Buffer.from(list))
    const answer = JSON.parse(text(json.end())) as { id: unknown; error: { message: string } }
    assert.equal(answer.id, 9)
    assert.match(answer.error.message, /nests too deeply/)

    const batch = new ResponseMessages({ kind: 'json', rewrite: hideDrop })
    batch.push(Buffer.from(`[${list}]`))
    const answers = JSON.parse(text(batch.end())) as { id: unknown }[]
    assert.deepEqual(
      answers.map((a) => a.id),
      [9],
    )

    const sse = new ResponseMessages({ kind: 'sse', rewrite: hideDrop })
    const out = text(sse.push(Buffer.from(`id: 1\ndata: ${list}\n\n`)))
    assert.ok(!out.includes('drop'), 'the tool to hide reached the agent')
    assert.match(out, /^id: 1\ndata: \{"jsonrpc":"2.0","id":9,"error":/)
  })

  it('drops an SSE event that is no answer and cannot be written back', () => {
    const deep = '['.repeat(50_000) + ']'.repeat(50_000)
    const mask = (m: ClassifiedMessage) =>
      m.kind === 'invalid' ? null : { ...m.value, masked: true }
    const sse = new ResponseMessages({ kind: 'sse', rewrite: mask })
    const note = `data: {"jsonrpc":"2.0","method":"notifications/message","params":{"data":${deep}}}\n\n`
    const answer = 'data: {"jsonrpc":"2.0","id":1,"result":{}}\n\n'
    const out = text(sse.push(Buffer.from(note + answer)))
    assert.equal(out, 'data: {"jsonrpc":"2.0","id":1,"result":{},"masked":true}\n\n')
  })
})
