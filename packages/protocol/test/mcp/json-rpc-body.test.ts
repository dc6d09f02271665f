// The one JSON-RPC body reader: golden single messages and batches, every message kind, the
// targets of calls, protocol eras, refusal ids, and hostile bodies (deep, huge, malformed); and
// its reader of what servers send, which reads the same way without the bounds.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  classifyMessage,
  isBodyProblem,
  jsonRpcMessageOf,
  parseJsonRpcText,
  readJsonRpcBody,
  refusalIds,
  refusalJson,
  LargeNumberId,
  LARGE_ID_PROBLEM,
  MAX_EXACT_ID,
  type BodyProblem,
  type JsonRpcBody,
} from '../../src/index.js'

function read(value: unknown): JsonRpcBody {
  const r = readJsonRpcBody(Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)))
  if (isBodyProblem(r)) throw new Error(`unexpected problem: ${r.reason}`)
  return r
}

function problem(text: string | Buffer): BodyProblem {
  const r = readJsonRpcBody(Buffer.isBuffer(text) ? text : Buffer.from(text))
  assert.ok(isBodyProblem(r), 'expected a problem')
  return r
}

describe('readJsonRpcBody', () => {
  it('reads a tools/call request: id, method, tool, legacy era', () => {
    const body = read({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'echo' } })
    assert.equal(body.batch, false)
    const m = body.messages[0]!
    assert.equal(m.kind, 'request')
    assert.ok(m.kind === 'request')
    assert.equal(m.id, 7)
    assert.equal(m.method, 'tools/call')
    assert.deepEqual(m.target, { kind: 'tool', name: 'echo' })
    assert.equal(m.era, 'legacy')
  })

  it('names the prompt of prompts/get and the resource of resources/read', () => {
    const p = read({ jsonrpc: '2.0', id: 1, method: 'prompts/get', params: { name: 'greet' } })
    assert.deepEqual(p.messages[0]!.kind === 'request' && p.messages[0]!.target, {
      kind: 'prompt',
      name: 'greet',
    })
    const r = read({
      jsonrpc: '2.0',
      id: 'a',
      method: 'resources/read',
      params: { uri: 'file:///x' },
    })
    assert.deepEqual(r.messages[0]!.kind === 'request' && r.messages[0]!.target, {
      kind: 'resource',
      name: 'file:///x',
    })
  })

  it('names no target for methods named like inherited properties', () => {
    for (const method of ['toString', 'constructor', '__proto__', 'valueOf']) {
      const body = read({ jsonrpc: '2.0', id: 1, method, params: { undefined: 'x', name: 'y' } })
      const m = body.messages[0]!
      assert.ok(m.kind === 'request', method)
      assert.equal(m.target, null, method)
    }
  })

  it('reads the era from the body: the _meta revision or server/discover', () => {
    const modern = read({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
      params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } },
    })
    assert.ok(modern.messages[0]!.kind === 'request')
    assert.equal(modern.messages[0]!.era, 'modern')
    assert.equal(modern.messages[0]!.bodyVersion, '2026-07-28')
    const bare = read({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
      params: { _meta: { protocolVersion: '2026-07-28' } },
    })
    assert.ok(bare.messages[0]!.kind === 'request' && bare.messages[0]!.era === 'modern')
    const discover = read({ jsonrpc: '2.0', id: 1, method: 'server/discover' })
    assert.ok(discover.messages[0]!.kind === 'request' && discover.messages[0]!.era === 'modern')
    const older = read({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
      params: { _meta: { protocolVersion: '2025-11-25' } },
    })
    assert.ok(older.messages[0]!.kind === 'request' && older.messages[0]!.era === 'legacy')
  })

  it('tells notifications, responses and invalid messages apart', () => {
    const body = read([
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 3, result: {} },
      { jsonrpc: '2.0', id: null, error: { code: -1, message: 'x' } },
      { id: 4, method: 'tools/call' },
      { jsonrpc: '2.0', id: { a: 1 }, method: 'ping' },
    ])
    assert.deepEqual(
      body.messages.map((m) => m.kind),
      ['notification', 'response', 'response', 'invalid', 'invalid'],
    )
    const invalid = body.messages[3]!
    assert.ok(invalid.kind === 'invalid')
    assert.equal(invalid.id, 4)
    assert.equal(invalid.method, 'tools/call')
    assert.match(invalid.problem, /jsonrpc/)
  })

  it('refuses bodies that are not JSON, not objects, or empty batches', () => {
    assert.equal(problem('{"jsonrpc":').policy, 'parse_error')
    assert.equal(problem(Buffer.from([0x7b, 0xff, 0x7d])).policy, 'parse_error')
    assert.equal(problem('42').policy, 'invalid_request')
    assert.equal(problem('null').policy, 'invalid_request')
    assert.equal(problem('[]').policy, 'invalid_request')
  })

  it('caps batches and nesting before it builds them', () => {
    const batch = JSON.stringify(
      Array.from({ length: 101 }, (_, i) => ({ jsonrpc: '2.0', method: 'x', id: i })),
    )
    assert.match(problem(batch).reason, /at most 100 messages; this one has 101/)
    assert.equal(read((JSON.parse(batch) as unknown[]).slice(1)).messages.length, 100)
    const deep = '['.repeat(1_000_000) + ']'.repeat(1_000_000)
    const p = problem(deep)
    assert.equal(p.policy, 'parse_error')
    assert.match(p.reason, /deeper than 64 levels/)
    // Brackets inside strings do not count, escaped quotes included.
    const args = { s: '[[[[' + '\\"'.repeat(10) + '{{{{'.repeat(100), t: 'a"b[' }
    assert.equal(
      read({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', arguments: args } })
        .messages.length,
      1,
    )
    let nested: unknown = { v: 1 }
    for (let i = 0; i < 60; i++) nested = { n: nested }
    assert.equal(read({ jsonrpc: '2.0', id: 1, method: 'm', params: nested }).messages.length, 1)
  })

  it('gives the ids a refusal answers', () => {
    assert.equal(refusalIds(read({ jsonrpc: '2.0', id: 'r', method: 'ping' })), 'r')
    assert.equal(refusalIds(read({ jsonrpc: '2.0', method: 'ping' })), null)
    assert.equal(refusalIds(null), null)
    assert.deepEqual(
      refusalIds(
        read([
          { jsonrpc: '2.0', id: 1, method: 'a' },
          { jsonrpc: '2.0', method: 'n' },
          { jsonrpc: '2.0', id: 2, method: 'b' },
        ]),
      ),
      [1, 2],
    )
    assert.equal(refusalIds(read([{ jsonrpc: '2.0', method: 'n' }])), null)
  })

  it("gives no id for a response: it is the server's question's, not the agent's request's", () => {
    // The agent's answer to a server's question 5, while a request 5 of its own is pending: an
    // error with id 5 would end that request, which was never refused.
    assert.equal(refusalIds(read({ jsonrpc: '2.0', id: 5, result: {} })), null)
    assert.equal(
      refusalIds(read({ jsonrpc: '2.0', id: 'q', error: { code: 1, message: 'm' } })),
      null,
    )
    assert.equal(refusalIds(read([{ jsonrpc: '2.0', id: 5, result: {} }])), null)
    assert.deepEqual(
      refusalIds(
        read([
          { jsonrpc: '2.0', id: 5, result: {} },
          { jsonrpc: '2.0', id: 6, method: 'ping' },
        ]),
      ),
      [6],
    )
    // An invalid message keeps its id, single or in a batch.
    assert.equal(refusalIds(read({ jsonrpc: '1.0', id: 7, method: 'ping' })), 7)
  })

  it('gives no id for an invalid message shaped as a response (found by a hostile review)', () => {
    for (const text of [
      '{"jsonrpc":"2.0","id":5,"result":{},"error":{"code":1,"message":"m"}}',
      '{"jsonrpc":"2.0","id":5,"result":{},"result":{}}',
      '{"jsonrpc":"2.0","id":9007199254740993,"result":{}}',
      '{"jsonrpc":"1.0","id":5,"error":{"code":1,"message":"m"}}',
      // Read as a result or an error by servers that match names without case (found by a
      // hostile review: the refusal carried the id of the server's question).
      '{"jsonrpc":"2.0","id":5,"Result":{}}',
      '{"jsonrpc":"2.0","id":5,"ERROR":{"code":1,"message":"m"}}',
      '{"jsonrpc":"2.0","id":5,"reſult":{}}',
    ]) {
      const body = readJsonRpcBody(new TextEncoder().encode(text))
      assert.ok(!isBodyProblem(body), text)
      assert.equal(body.messages[0]!.kind, 'invalid', text)
      assert.equal(refusalIds(body), null, text)
      const batch = readJsonRpcBody(new TextEncoder().encode(`[${text}]`))
      assert.ok(!isBodyProblem(batch))
      assert.equal(refusalIds(batch), null, `[${text}]`)
    }
    // Without a result or an error, a message lacking its method is still the agent's request.
    assert.equal(refusalIds(read({ jsonrpc: '2.0', id: 8 })), 8)
  })

  it('refuses a numeric id beyond 2^53 − 1, keeping the digits it was sent with', () => {
    const one = read('{"jsonrpc":"2.0","id":9007199254740993,"method":"initialize","params":{}}')
    const m = one.messages[0]!
    assert.ok(m.kind === 'invalid')
    assert.equal(m.problem, LARGE_ID_PROBLEM)
    assert.equal(m.method, 'initialize')
    assert.ok(m.id instanceof LargeNumberId)
    assert.equal(m.id.text, '9007199254740993')
    const ids = refusalIds(
      read(
        '[{"jsonrpc":"2.0","id":1,"method":"a"},' +
          '{"jsonrpc":"2.0","id":-123456789012345678901234567890,"method":"b"},' +
          '{"jsonrpc":"2.0","id":1e400,"method":"c"}]',
      ),
    )
    assert.ok(Array.isArray(ids))
    assert.equal(ids[0], 1)
    assert.deepEqual(
      ids.slice(1).map((id) => (id instanceof LargeNumberId ? id.text : id)),
      ['-123456789012345678901234567890', '1e400'],
    )
    const json = refusalJson('invalid_request', 'Invalid Request', 'r', ids)
    assert.deepEqual(
      [...json.matchAll(/"id":([^,]+),/g)].map((m) => m[1]),
      ['1', '-123456789012345678901234567890', '1e400'],
    )
    assert.equal((JSON.parse(json) as unknown[]).length, 3)
    // The largest exact ids are ids like any other, and so are strings of any length.
    assert.equal(
      read({ jsonrpc: '2.0', id: MAX_EXACT_ID, method: 'a' }).messages[0]!.kind,
      'request',
    )
    assert.equal(
      read({ jsonrpc: '2.0', id: -MAX_EXACT_ID, method: 'a' }).messages[0]!.kind,
      'request',
    )
    assert.equal(
      read({ jsonrpc: '2.0', id: '9'.repeat(40), method: 'a' }).messages[0]!.kind,
      'request',
    )
    // What a server sends is read the same way.
    const answer = parseJsonRpcText('{"jsonrpc":"2.0","id":9007199254740993,"result":{}}')
    assert.ok(!isBodyProblem(answer) && answer.messages[0]!.kind === 'invalid')
  })

  it("finds every large id of a long batch in one pass over it, each message's own", () => {
    // Found again for each message, 8,000 of them in a server's answer took seconds.
    const parts = Array.from({ length: 8000 }, (_, i) =>
      i % 1000 === 7
        ? '"not an object"'
        : `{"jsonrpc":"2.0","id":${100000000000000000000 + i}${i},"result":{"x":{"id":1}}}`,
    )
    const answer = parseJsonRpcText(`[${parts.join(',')}]`)
    assert.ok(!isBodyProblem(answer))
    assert.equal(answer.messages.length, 8000)
    for (const k of [0, 1, 6, 8, 3999, 7999]) {
      const m = answer.messages[k]!
      const id: unknown = m.kind === 'notification' ? null : m.id
      assert.ok(id instanceof LargeNumberId, String(k))
      assert.equal(id.text, `${100000000000000000000 + k}${k}`)
    }
    assert.equal(answer.messages[7]!.kind, 'invalid')
  })

  it('makes a message that names a member twice invalid, keeping its id unless it is the id', () => {
    const single = read(
      '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"a","name":"b"}}',
    )
    const m = single.messages[0]!
    assert.equal(m.kind, 'invalid')
    assert.ok(m.kind === 'invalid')
    assert.equal(m.id, 3)
    assert.equal(m.method, 'tools/call')
    assert.match(m.problem, /the member "name" appears twice in one object/)
    assert.deepEqual(refusalIds(single), 3)
    const batch = read(
      '[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"id":9,"method":"ping"},' +
        '{"jsonrpc":"2.0","method":"n","params":{"x":1,"x":1}}]',
    )
    assert.deepEqual(
      batch.messages.map((x) => x.kind),
      ['request', 'invalid', 'invalid'],
    )
    assert.deepEqual(refusalIds(batch), [1])
    // What servers send is read as JSON.parse reads it (the last member).
    const answer = parseJsonRpcText('{"jsonrpc":"2.0","id":1,"result":{"a":1,"a":2}}')
    assert.ok(!isBodyProblem(answer) && answer.messages[0]!.kind === 'response')
  })

  it('makes a message invalid whose names a server matching them without case reads as one', () => {
    // Go's encoding/json matches fields without case and folds ſ to s: the last of the two wins.
    for (const [raw, id] of [
      [
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"safe","Name":"secret"}}',
        1,
      ],
      ['{"jsonrpc":"2.0","id":2,"method":"ping","Method":"tools/call","params":{"name":"x"}}', 2],
      ['{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"safe"},"paramſ":{}}', 3],
      [
        '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"safe","\\u004eame":"x"}}',
        4,
      ],
      // A response the edge does not govern, which such a server takes for a call.
      ['{"jsonrpc":"2.0","id":5,"result":{},"Method":"tools/call","Params":{"name":"x"}}', 5],
      ['{"jsonrpc":"2.0","id":6,"ID":7,"method":"ping"}', null],
    ] as const) {
      const body = read(raw)
      const m = body.messages[0]!
      assert.equal(m.kind, 'invalid', raw)
      assert.ok(m.kind === 'invalid')
      assert.match(m.problem, /without case/, raw)
      assert.deepEqual(refusalIds(body), id, raw)
    }
    // Names in a tool's arguments are the tool's own; distinct names pass.
    const args = read(
      '{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"a","arguments":{"Path":1,"path":2}}}',
    )
    assert.equal(args.messages[0]!.kind, 'request')
    // What servers send is read as it is.
    const answer = parseJsonRpcText('{"jsonrpc":"2.0","id":1,"result":{"a":1,"A":2}}')
    assert.ok(!isBodyProblem(answer) && answer.messages[0]!.kind === 'response')
  })

  it('classifies any value without throwing', () => {
    for (const v of [
      undefined,
      null,
      1,
      'x',
      [],
      {},
      { method: 1 },
      { jsonrpc: '2.0', result: 1, id: 1 },
    ]) {
      assert.equal(classifyMessage(v).kind, 'invalid')
    }
  })
})

describe('parseJsonRpcText', () => {
  it('reads one message or a batch as readJsonRpcBody does', () => {
    const one = parseJsonRpcText('{"jsonrpc":"2.0","id":1,"result":{"ok":true}}')
    assert.ok(!isBodyProblem(one))
    assert.equal(one.batch, false)
    assert.equal(one.messages[0]!.kind, 'response')
    const batch = parseJsonRpcText('[{"jsonrpc":"2.0","method":"n"},{"id":2}]')
    assert.ok(!isBodyProblem(batch))
    assert.deepEqual(
      batch.messages.map((m) => m.kind),
      ['notification', 'invalid'],
    )
  })

  it('says why text is not JSON-RPC', () => {
    const notJson = parseJsonRpcText('this line')
    assert.ok(isBodyProblem(notJson))
    assert.equal(notJson.policy, 'parse_error')
    assert.match(notJson.reason, /^not valid JSON: /)
    for (const text of ['42', 'null', '"x"', '[]']) {
      const p = parseJsonRpcText(text)
      assert.ok(isBodyProblem(p) && p.policy === 'invalid_request', text)
    }
  })

  it('sets no bound on nesting or batch size: a server answers as deep as its results go', () => {
    let nested: unknown = { v: 1 }
    for (let i = 0; i < 200; i++) nested = { n: nested }
    const deep = parseJsonRpcText(JSON.stringify({ jsonrpc: '2.0', id: 1, result: nested }))
    assert.ok(!isBodyProblem(deep) && deep.messages[0]!.kind === 'response')
    const many = Array.from({ length: 500 }, (_, i) => ({ jsonrpc: '2.0', id: i, result: {} }))
    const big = parseJsonRpcText(JSON.stringify(many))
    assert.ok(!isBodyProblem(big) && big.messages.length === 500)
  })
})

describe('jsonRpcMessageOf', () => {
  it('gives the validated message as it arrived, or null for an invalid one', () => {
    const value = {
      jsonrpc: '2.0',
      id: 'a',
      method: 'tools/call',
      params: { name: 't', _meta: { x: 1 } },
    }
    assert.equal(jsonRpcMessageOf(classifyMessage(value)), value)
    assert.equal(jsonRpcMessageOf(classifyMessage({ id: 1, method: 'x' })), null)
  })
})

describe('calls without a name to check', () => {
  it('are invalid, keeping their id (found by a hostile review)', () => {
    // A server reading `TOOLS[params.name]` runs `["secret_tool"]` as secret_tool, which no
    // policy looked at.
    for (const [method, params] of [
      ['tools/call', { name: ['secret_tool'] }],
      ['tools/call', { name: 12 }],
      ['tools/call', {}],
      ['tools/call', ['secret_tool']],
      ['tools/call', undefined],
      ['prompts/get', { name: { toString: 'x' } }],
      ['resources/read', { uri: null }],
    ] as const) {
      const m = classifyMessage({ jsonrpc: '2.0', id: 7, method, params })
      assert.equal(m.kind, 'invalid', `${method} ${JSON.stringify(params)}`)
      assert.equal(m.id, 7)
      assert.equal(m.method, method)
      assert.match(m.kind === 'invalid' ? m.problem : '', /needs params\.(name|uri) as a string/)
      const n = classifyMessage({ jsonrpc: '2.0', method, params })
      assert.equal(n.kind, 'invalid', `a notification: ${method}`)
    }
    assert.equal(classifyMessage({ jsonrpc: '2.0', id: 1, method: 'tools/list' }).kind, 'request')
  })
})
