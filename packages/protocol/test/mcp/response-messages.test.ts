// The messages of a response: taps on JSON and SSE, rewrites that hold a JSON body and rewrite
// SSE event by event, untouched bytes when nothing changes, the bound on JSON bodies, and the
// bound across responses on what their copies hold (`held`).
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  ResponseMessages,
  SseParser,
  SSE_PIECE_COST,
  responseKind,
  type ClassifiedMessage,
  type HeldCopies,
} from '../../src/index.js'

const text = (chunks: readonly Uint8Array[]) => Buffer.concat(chunks).toString()

const hideDrop = (m: ClassifiedMessage) => {
  if (m.kind !== 'response') return null
  const result = m.value.result as { tools?: { name: string }[] } | undefined
  if (!result?.tools) return null
  return { ...m.value, result: { ...result, tools: result.tools.filter((t) => t.name !== 'drop') } }
}

/** A bound of `max` bytes across responses, and what is held against it now. */
function bound(max: number): HeldCopies & { total: number } {
  const held = {
    total: 0,
    take(bytes: number) {
      if (held.total + bytes > max) return false
      held.total += bytes
      return true
    },
    give(bytes: number) {
      held.total -= bytes
    },
  }
  return held
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

  it('writes a message naming a member twice as parsed when it rewrites, never as sent', () => {
    // Found by a review: JSON.parse keeps the last of two members, the rewrite (forwarded
    // redaction) found nothing in it and the bytes went as sent, the secret in the first member.
    const masks = (m: ClassifiedMessage) => (JSON.stringify(m.value).includes('ghp_') ? {} : null)
    const twice = '{"jsonrpc":"2.0","id":2,"result":{"content":[{"text":"ghp_x","text":"ok"}]}}'
    const read = '{"jsonrpc":"2.0","id":2,"result":{"content":[{"text":"ok"}]}}'
    const json = new ResponseMessages({ kind: 'json', rewrite: masks })
    json.push(Buffer.from(twice))
    assert.equal(text(json.end()), read)
    const sse = new ResponseMessages({ kind: 'sse', rewrite: masks })
    assert.equal(
      text(sse.push(Buffer.from(`data: [${twice},${twice}]\n\n`))),
      `data: [${read},${read}]\n\n`,
    )
    // Once each, or only tapped: the bytes as they came.
    const once = '{"jsonrpc":"2.0","id":2,"result":{"content":[{"text":"ok","type":"text"}]}}'
    const plain = new ResponseMessages({ kind: 'json', rewrite: masks })
    const bytes = Buffer.from(once)
    plain.push(bytes)
    assert.deepEqual(plain.end(), [bytes])
    const tapped = new ResponseMessages({ kind: 'json', onMessage: () => {} })
    assert.deepEqual(tapped.push(Buffer.from(twice)), [Buffer.from(twice)])
  })

  it('reads a body of another type whole as text when there is text to redact', () => {
    const mask = (t: string) => (t.includes('sk-1') ? t.replaceAll('sk-1', '[REDACTED]') : null)
    const page = new ResponseMessages({ kind: 'other', rewrite: hideDrop, rewriteText: mask })
    assert.equal(page.readsText, true)
    assert.equal(page.mustRead, true, 'by default, when messages are rewritten')
    assert.deepEqual(page.push(Buffer.from('<pre>Error: sk-')), [])
    assert.deepEqual(page.push(Buffer.from('1 refused</pre>')), [])
    assert.equal(page.holdsBody, true)
    assert.equal(text(page.end()), '<pre>Error: [REDACTED] refused</pre>')
    // Nothing to mask: the bytes as they came, even those that are not UTF-8.
    const binary = new ResponseMessages({ kind: 'other', rewrite: hideDrop, rewriteText: mask })
    const bytes = Buffer.from([0xff, 0xfe, 0x00, 0x41])
    assert.deepEqual(binary.push(bytes), [])
    assert.deepEqual(binary.end(), [bytes])
    // JSON-RPC in it is rewritten as the messages they are.
    const labelled = new ResponseMessages({ kind: 'other', rewrite: hideDrop, rewriteText: mask })
    labelled.push(Buffer.from('{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"drop"}]}}'))
    assert.equal(text(labelled.end()), '{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}')
    // Past the bound it cannot be checked.
    const large = new ResponseMessages({
      kind: 'other',
      rewrite: hideDrop,
      rewriteText: mask,
      maxJsonBytes: 8,
    })
    large.push(Buffer.from('0123456789'))
    assert.equal(large.overflowed, true)
    // Without text redaction, or not rewritten, it passes untouched; `mustRead` may say it can.
    for (const opts of [{ rewrite: hideDrop }, { rewriteText: mask }]) {
      const passing = new ResponseMessages({ kind: 'other', ...opts })
      assert.equal(passing.readsText, false)
      assert.deepEqual(passing.push(bytes), [bytes])
      assert.deepEqual(passing.end(), [])
    }
    const free = new ResponseMessages({ kind: 'other', rewrite: hideDrop, mustRead: false })
    assert.equal(free.mustRead, false)
  })

  it('keeps the priming event of a resumable stream as it rewrites, retry and all', () => {
    const r = new ResponseMessages({ kind: 'sse', rewrite: hideDrop })
    assert.equal(
      text(r.push(Buffer.from('id: s_1\nretry: 1000\ndata: \n\n'))),
      'id: s_1\nretry: 1000\ndata: \n\n',
    )
  })

  it('answers a keep-alive with one of its own, and writes every event anew', () => {
    const r = new ResponseMessages({ kind: 'sse', rewrite: hideDrop })
    assert.equal(text(r.push(Buffer.from(': keep-alive\n\n'))), ':\n')
    assert.equal(text(r.push(Buffer.from('retry: 5\n\n'))), ':\n')
    const note = 'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/progress"}\n\n'
    assert.equal(
      text(r.push(Buffer.from(`: ping\n\n${note}`))),
      'data: {"jsonrpc":"2.0","method":"notifications/progress"}\n\n',
    )
    // Cut inside an event: nothing until it is whole.
    assert.deepEqual(r.push(Buffer.from(note.slice(0, 20))), [])
    assert.equal(
      text(r.push(Buffer.from(note.slice(20)))),
      'data: {"jsonrpc":"2.0","method":"notifications/progress"}\n\n',
    )
    const listing =
      ': ping\ndata: {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"drop"}]}}\n\n'
    assert.equal(
      text(r.push(Buffer.from(listing))),
      'data: {"jsonrpc":"2.0","id":1,"result":{"tools":[]}}\n\n',
    )
  })

  it('sends the agent what it checked, however the server cuts or spells its stream', () => {
    const listing = (id: number) =>
      Buffer.from(`data: {"jsonrpc":"2.0","id":${id},"result":{"tools":[{"name":"drop"}]}}\n\n`)
    /** What an agent reading `out` as an SSE stream gets, split on lines as `split` does. */
    const agentReads = (out: Uint8Array[], split: (text: string) => string[]) => {
      const parser = new SseParser()
      const lines = split(Buffer.concat(out).toString())
      return parser.pushText(lines.map((l) => `${l}\n`).join('')).map((e) => e.data)
    }
    // A character cut at the end of a rewritten chunk: the edge's decoder still holds its first
    // byte, the agent never got it.
    const cut = new ResponseMessages({ kind: 'sse', rewrite: hideDrop })
    const out = [
      ...cut.push(Buffer.concat([listing(1), Buffer.from([0xe2])])),
      ...cut.push(listing(2)),
      ...cut.push(listing(3)),
    ]
    const lf = (t: string) => t.split('\n')
    assert.ok(!agentReads(out, lf).some((d) => d.includes('"drop"')), text(out))
    // U+2028 ends a line for clients that split as Python's str.splitlines does.
    // eslint-disable-next-line no-control-regex -- the characters str.splitlines splits on
    const splitlines = (t: string) => t.split(/\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]/)
    const sep = new ResponseMessages({ kind: 'sse', rewrite: hideDrop })
    const hidden = [
      ...sep.push(Buffer.from(`: ping\u2028${listing(4).toString()}`)),
      ...sep.push(
        Buffer.from(`id: 1\u2028${listing(5).toString().replace('\n\n', '\ndata: \n\n')}`),
      ),
    ]
    const reads = agentReads(hidden, splitlines)
    assert.ok(!reads.some((d) => d.includes('"drop"')), text(hidden))
    // Such a character in data is written as a JSON escape: the same value to a JSON reader.
    const escaped = new ResponseMessages({ kind: 'sse', rewrite: hideDrop })
    const said = escaped.push(
      Buffer.from(
        'data: {"jsonrpc":"2.0","id":6,"result":{"tools":[{"name":"drop"}],"note":"a\u2028b"}}\n\n',
      ),
    )
    assert.match(text(said), /"note":"a\\u2028b"/)
    assert.deepEqual(JSON.parse(agentReads(said, splitlines)[0]!), {
      jsonrpc: '2.0',
      id: 6,
      result: { tools: [], note: 'a\u2028b' },
    })
    // A raw control character makes JSON invalid; escaped it would be valid: checked escaped.
    const control = new ResponseMessages({ kind: 'sse', rewrite: hideDrop })
    const vt = control.push(
      Buffer.from(
        'data: {"jsonrpc":"2.0","id":7,"result":{"tools":[{"name":"drop","x":"\v"}]}}\n\n',
      ),
    )
    assert.ok(!agentReads(vt, lf).some((d) => d.includes('"drop"')), text(vt))
    // A BOM after the start, once nothing reached the agent yet; an event past the parser's bound.
    const bom = new ResponseMessages({ kind: 'sse', rewrite: hideDrop })
    const late = [
      ...bom.push(Buffer.from('retry: 5\n')),
      ...bom.push(Buffer.from('\n')),
      ...bom.push(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), listing(8)])),
    ]
    assert.ok(!agentReads(late, lf).some((d) => d.includes('"drop"')), text(late))
    const big = new ResponseMessages({ kind: 'sse', rewrite: hideDrop })
    const padded = `data: {"jsonrpc":"2.0","id":9,"result":{"tools":[{"name":"drop"}],"pad":"${'x'.repeat(5 * 1024 * 1024)}"}}\n\n`
    assert.ok(!agentReads(big.push(Buffer.from(padded)), lf).some((d) => d.includes('"drop"')))
  })

  it('cuts an answer off before the agent can read a message it may not have whole', () => {
    // A listing answering nothing the request asked (its id is not 1): cut where it stands.
    const stray = (m: ClassifiedMessage) => m.kind === 'response' && m.id !== 1
    const listing = '{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"drop"}]}}'
    const answer = '{"jsonrpc":"2.0","id":1,"result":{"content":[]}}'
    for (const rewrite of [null, hideDrop]) {
      // JSON only tapped holds back its last chunk until the next, so the end can still be kept.
      const json = new ResponseMessages({ kind: 'json', rewrite, cutsOn: stray })
      const body = Buffer.from(listing)
      const sent = [...json.push(body.subarray(0, 20)), ...json.push(body.subarray(20, 40))]
      assert.equal(text(sent), rewrite ? '' : listing.slice(0, 20))
      assert.deepEqual(json.push(body.subarray(40)), rewrite ? [] : [body.subarray(20, 40)])
      assert.deepEqual(json.end(), [], 'the last chunk is never sent')
      assert.equal(json.cut, true)
      const fine = new ResponseMessages({ kind: 'json', rewrite, cutsOn: stray })
      const ok = Buffer.from(answer)
      const out = [...fine.push(ok.subarray(0, 9)), ...fine.push(ok.subarray(9)), ...fine.end()]
      assert.equal(text(out), answer)
      assert.equal(fine.cut, false)
      // SSE: the chunk that would complete the event is not sent, nor anything after it.
      const sse = new ResponseMessages({ kind: 'sse', rewrite, cutsOn: stray })
      const first = text(sse.push(Buffer.from(`data: ${answer}\n\ndata: ${listing}\n`)))
      assert.match(first, /"id":1/)
      // Only tapped, the stray's line may have gone as it came, but never the blank line that
      // would make it an event; rewritten, nothing of it.
      if (rewrite) assert.doesNotMatch(first, /drop/)
      else assert.ok(!first.endsWith('\n\n'), first)
      assert.deepEqual(sse.push(Buffer.from('\n')), [])
      assert.equal(sse.cut, true)
      assert.deepEqual(sse.push(Buffer.from(`data: ${answer}\n\n`)), [])
      assert.deepEqual(sse.end(), [])
    }
    // An event the stream ends in without its blank line is checked as if ended (httpx dispatches
    // it after a lone CR; the edge checks every ending, which costs nothing).
    for (const ending of ['\r', '\n', '']) {
      const unended = new ResponseMessages({ kind: 'sse', cutsOn: stray })
      unended.push(Buffer.from(`data: ${listing}${ending}`))
      assert.deepEqual(unended.end(), [])
      assert.equal(unended.cut, true, JSON.stringify(ending))
    }
    // A batch with one such message is cut whole.
    const batch = new ResponseMessages({ kind: 'json', cutsOn: stray })
    assert.deepEqual(batch.push(Buffer.from(`[${answer},${listing}]`)), [])
    assert.deepEqual(batch.end(), [])
    assert.equal(batch.cut, true)
  })

  it('gives only complete events, or a whole JSON body, when told to write whole (HTTP/1.0)', () => {
    const stray = (m: ClassifiedMessage) => m.kind === 'response' && m.id !== 1
    const listing = '{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"drop"}]}}'
    const answer = '{"jsonrpc":"2.0","id":1,"result":{"content":[]}}'
    const sse = new ResponseMessages({ kind: 'sse', cutsOn: stray })
    sse.writeWhole()
    // Nothing of an event goes before its blank line: the listing's line is never sent.
    assert.deepEqual(sse.push(Buffer.from(`data: ${answer.slice(0, 10)}`)), [])
    const first = text(sse.push(Buffer.from(`${answer.slice(10)}\n\ndata: ${listing}\n`)))
    assert.equal(first, `data: ${answer}\n\n`)
    assert.deepEqual(sse.push(Buffer.from('\n')), [])
    assert.equal(sse.cut, true)
    // An event the stream ends in without its blank line is dropped, not completed.
    const unended = new ResponseMessages({ kind: 'sse', cutsOn: stray })
    unended.writeWhole()
    assert.deepEqual(unended.push(Buffer.from(`data: ${answer}`)), [])
    assert.deepEqual(unended.end(), [])
    // A JSON answer is held whole until it was read and checked (found by a hostile review: one
    // ended short by a close after all but a last byte reached the agent, which read it whole).
    const json = new ResponseMessages({ kind: 'json', cutsOn: stray })
    json.writeWhole()
    assert.equal(json.holdsBody, true)
    assert.deepEqual(json.push(Buffer.from(answer.slice(0, 9))), [])
    assert.deepEqual(json.push(Buffer.from(answer.slice(9))), [])
    assert.equal(text(json.end()), answer)
    const stop = new ResponseMessages({ kind: 'json', cutsOn: stray })
    stop.writeWhole()
    assert.deepEqual(
      [listing, 'x'].flatMap((c) => stop.push(Buffer.from(c))),
      [],
    )
    // One too large to hold whole cannot be checked: it is not given to send.
    const big = new ResponseMessages({ kind: 'json', maxJsonBytes: 32, cutsOn: stray })
    big.writeWhole()
    big.push(Buffer.from(answer))
    assert.equal(big.overflowed, true)
    assert.equal(big.writesWhole, true)
  })

  it("holds back a JSON body's last chunk with the whitespace after it (HTTP/1.0 agents)", () => {
    // Found by a hostile review: a server that sent its listing, then a chunk of whitespace, got
    // the listing whole to the agent (only the whitespace was held back). An answer cut there
    // ended short by a close, which to an HTTP/1.0 agent is the end of a complete JSON answer.
    const stray = (m: ClassifiedMessage) => m.kind === 'response' && m.id !== 1
    const listing = Buffer.from('{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"drop"}]}}')
    const answer = Buffer.from('{"jsonrpc":"2.0","id":1,"result":{"content":[]}}')
    const json = new ResponseMessages({ kind: 'json', cutsOn: stray })
    const sent = [listing, Buffer.from('\n'), Buffer.from(' \r\n\t')].flatMap((c) => json.push(c))
    assert.equal(text(sent), '', 'nothing of the listing went')
    assert.deepEqual(json.end(), [])
    assert.equal(json.cut, true)
    // A checked answer still goes whole, its whitespace in order.
    const fine = new ResponseMessages({ kind: 'json', cutsOn: stray })
    const parts = [answer.subarray(0, 9), answer.subarray(9), Buffer.from('\n'), Buffer.from(' ')]
    const out = [...parts.flatMap((c) => fine.push(c)), ...fine.end()]
    assert.equal(text(out), `${answer.toString()}\n `)
    // Whitespace sent one byte per chunk is held in a few blocks, not a Buffer per byte (found
    // by the hostile fragments test: a 3 MiB answer of spaces grew burrowd by 415 MB).
    const dribbled = new ResponseMessages({ kind: 'json', cutsOn: stray })
    assert.deepEqual(dribbled.push(answer), [])
    for (let i = 0; i < 100_000; i++) assert.deepEqual(dribbled.push(Buffer.from(' ')), [])
    const held = dribbled.end()
    assert.ok(held.length < 20, `${held.length} pieces held`)
    assert.equal(text(held), answer.toString() + ' '.repeat(100_000))
    // Past its bound, unread: the whitespace after the last chunk is held back with it too.
    for (const pending of [false, true]) {
      const big = new ResponseMessages({
        kind: 'json',
        maxJsonBytes: 32,
        cutsOn: stray,
        cutsUnread: () => pending,
      })
      const pieces = [listing.subarray(0, 40), listing.subarray(40), Buffer.from('\n')]
      const early = pieces.flatMap((c) => big.push(c))
      assert.equal(text(early), listing.subarray(0, 40).toString())
      const end = big.end()
      assert.equal(big.cut, pending)
      assert.equal(text(end), pending ? '' : `${listing.subarray(40).toString()}\n`)
    }
    // Whitespace held past the bound is counted; when it cannot be, it is cut while a listing is
    // pending (a server sending whitespace without end would otherwise hold memory).
    const tight = new ResponseMessages({
      kind: 'json',
      maxJsonBytes: 32,
      held: bound(0),
      cutsOn: stray,
      cutsUnread: () => true,
    })
    tight.push(listing.subarray(0, 40))
    assert.equal(text(tight.push(listing.subarray(40))), listing.subarray(0, 40).toString())
    assert.deepEqual(tight.push(Buffer.from('\n')), [])
    assert.equal(tight.cut, true)
  })

  it('cuts what it could not read where it would end a message, while told it may not pass', () => {
    const stray = (m: ClassifiedMessage) => m.kind === 'response' && m.id !== 1
    const body = Buffer.from(`{"jsonrpc":"2.0","id":1,${' '.repeat(64)}"result":{}}`)
    for (const pending of [false, true]) {
      // A JSON body past its bound: its chunks pass unread but the last, held back for the end.
      const json = new ResponseMessages({
        kind: 'json',
        maxJsonBytes: 32,
        cutsOn: stray,
        cutsUnread: () => pending,
      })
      const sent = [body.subarray(0, 20), body.subarray(20, 50), body.subarray(50)].flatMap((c) =>
        json.push(c),
      )
      assert.equal(json.overflowed, true)
      assert.equal(text(sent), body.subarray(0, 50).toString())
      const end = json.end()
      assert.equal(json.cut, pending)
      assert.equal(text(end), pending ? '' : body.subarray(50).toString())
      // An SSE event past the bound across responses: its chunks are not read, and are cut.
      const sse = new ResponseMessages({
        kind: 'sse',
        // Each piece held counts SSE_PIECE_COST more than its characters.
        held: bound(40 + SSE_PIECE_COST),
        cutsOn: stray,
        cutsUnread: () => pending,
      })
      const first = sse.push(Buffer.from('data: {"jsonrpc":"2.0",'))
      assert.equal(text(first), 'data: {"jsonrpc":"2.0",')
      // Past the bound the tap stops: the chunk goes on, the one that ends the event is unread.
      assert.equal(sse.push(Buffer.from(`"id":2,${' '.repeat(64)}`)).length, 1)
      const rest = sse.push(Buffer.from('"result":{"tools":[]}}\n\n'))
      assert.equal(sse.cut, pending)
      assert.equal(rest.length, pending ? 0 : 1)
    }
    // An SSE event past the parser's own bound (4 Mi characters) is skipped unread: cut too.
    const long = new ResponseMessages({ kind: 'sse', cutsOn: stray, cutsUnread: () => true })
    assert.equal(long.push(Buffer.from('data: {"jsonrpc":"2.0","id":1,"result":{}}\n\n')).length, 1)
    assert.deepEqual(long.push(Buffer.from(`data: ${' '.repeat(4 * 1024 * 1024 + 1)}`)), [])
    assert.equal(long.cut, true)
    // Without `cutsOn` nothing is held back or cut.
    const plain = new ResponseMessages({ kind: 'json', maxJsonBytes: 32, cutsUnread: () => true })
    assert.equal(text([...plain.push(body), ...plain.end()]), body.toString())
  })

  it('rewrites SSE event by event, keeping ids (written when they change) and event names', () => {
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
        'data: {"jsonrpc":"2.0","id":1,"result":{"tools":[]}}\n\n',
    )
  })

  it('writes a long id once for the events it carries over to, not with each', () => {
    // Written with every event, a 1 MB id and 800 events of 9 bytes made 800 MB.
    const r = new ResponseMessages({ kind: 'sse', rewrite: hideDrop })
    const id = 'a'.repeat(100_000)
    const out = text(r.push(Buffer.from(`id: ${id}\ndata: {}\n\n${'data: {}\n\n'.repeat(1000)}`)))
    assert.equal(out.split(id).length - 1, 1)
    assert.ok(out.length < id.length + 20_000, String(out.length))
    assert.equal(out.match(/^data: \{\}$/gm)?.length, 1001)
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

  it('counts a JSON copy while it is held, and gives it back when the body ends', () => {
    const held = bound(1000)
    const r = new ResponseMessages({ kind: 'json', held })
    const body = Buffer.from('{"jsonrpc":"2.0","id":1,"result":{"x":1}}')
    r.push(body.subarray(0, 10))
    assert.equal(held.total, 10)
    r.push(body.subarray(10))
    assert.equal(held.total, body.length)
    r.end()
    assert.equal(held.total, 0)
  })

  it('stops tapping a JSON body past the bound across responses; the bytes pass untouched', () => {
    const held = bound(40)
    const other = new ResponseMessages({ kind: 'json', held })
    other.push(Buffer.alloc(30, 0x20))
    const seen: unknown[] = []
    let cuts = 0
    const r = new ResponseMessages({
      kind: 'json',
      held,
      onMessage: (m) => seen.push(m.value),
      onCut: () => cuts++,
    })
    const body = Buffer.from('{"jsonrpc":"2.0","id":1,"result":{"x":1}}')
    const out = [...r.push(body.subarray(0, 5)), ...r.push(body.subarray(5)), ...r.end()]
    assert.equal(text(out), body.toString())
    assert.deepEqual(seen, [], 'no message was tapped from a partial copy')
    assert.equal(cuts, 1)
    assert.equal(r.overflowed, true)
    assert.equal(r.overBudget, true)
    assert.equal(r.held, 0)
    assert.equal(held.total, 30, 'only the other response holds bytes')
    other.release()
    assert.equal(held.total, 0)
  })

  it('says a JSON body to rewrite past the bound across responses cannot be checked', () => {
    const held = bound(16)
    const r = new ResponseMessages({ kind: 'json', rewrite: hideDrop, held })
    const body = Buffer.from('{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"drop"}]}}')
    r.push(body.subarray(0, 10))
    assert.equal(r.holdsBody, true)
    r.push(body.subarray(10))
    assert.equal(r.rewrites && r.overflowed && r.overBudget, true)
    assert.equal(held.total, 0)
    assert.deepEqual(r.end(), [])
  })

  it('counts the SSE event being read; past the bound a tap stops and the stream passes', () => {
    const held = bound(20 + SSE_PIECE_COST)
    const seen: unknown[] = []
    let cuts = 0
    const r = new ResponseMessages({
      kind: 'sse',
      held,
      onMessage: (m) => seen.push(m.value),
      onCut: () => cuts++,
    })
    const first = Buffer.from('data: {"jsonrpc":"2.0","method":"a"}\n\ndata: {"json')
    assert.deepEqual(r.push(first), [first])
    assert.equal(seen.length, 1)
    assert.equal(held.total, 'data: {"json'.length + SSE_PIECE_COST)
    const more = Buffer.from('rpc":"2.0","id":1,')
    assert.deepEqual(r.push(more), [more], 'the event passes untouched')
    assert.equal(cuts, 1)
    assert.equal(held.total, 0)
    const rest = Buffer.from('"result":{"x":1}}\n\n')
    assert.deepEqual(r.push(rest), [rest])
    const later = Buffer.from('data: {"jsonrpc":"2.0","method":"b"}\n\n')
    assert.deepEqual(r.push(later), [later])
    assert.equal(seen.length, 1, 'nothing is tapped once the copy stopped')
    assert.deepEqual(r.end(), [])
    assert.equal(held.total, 0)
  })

  it('drops an SSE event to rewrite past the bound across responses, and reads the next', () => {
    const held = bound(40)
    const r = new ResponseMessages({ kind: 'sse', rewrite: hideDrop, held })
    const pad = 'x'.repeat(60)
    const big = `data: {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"drop"}],"pad":"${pad}"}}\n\n`
    const small = 'data: {"jsonrpc":"2.0","id":2,"result":{}}\n\n'
    const out = [
      ...r.push(Buffer.from(big.slice(0, 30))),
      ...r.push(Buffer.from(big.slice(30, 70))),
    ]
    assert.equal(held.total, 0, 'past the bound, the event is dropped')
    out.push(...r.push(Buffer.from(big.slice(70))))
    assert.ok(!text(out).includes('data:'), 'the event that could not be held is not sent')
    assert.equal(text(r.push(Buffer.from(small))), small)
    assert.deepEqual(r.end(), [])
  })

  it('gives every byte back when a response is abandoned', () => {
    const held = bound(1000)
    const json = new ResponseMessages({ kind: 'json', rewrite: hideDrop, held })
    json.push(Buffer.from('{"jsonrpc":"2.0","id":1,'))
    const sse = new ResponseMessages({ kind: 'sse', held })
    sse.push(Buffer.from('data: {"jsonrpc":'))
    assert.ok(held.total > 0)
    json.release()
    sse.release()
    assert.equal(held.total, 0)
    assert.deepEqual(json.push(Buffer.from('"result":{}}')), [], 'nothing unchecked after')
  })
})
