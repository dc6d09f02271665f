// Text that cannot be JSON, told by its first character without parsing it: JSON.parse's refusal
// is an exception, which costs V8 some thirty times the parse of a short message.
import assert from 'node:assert/strict'
import { describe, it, mock } from 'node:test'
import { isBodyProblem, parseJsonRpcText } from '../../src/mcp/json-rpc-body.js'
import { jsonStartProblem } from '../../src/mcp/json-text-start.js'

describe('jsonStartProblem', () => {
  it('passes every text a JSON value may start, whitespace first or not', () => {
    for (const text of ['{}', '[1]', '"s"', '-1', '0', '9', 'true', 'false', 'null', ' \t\r\n{']) {
      assert.equal(jsonStartProblem(text), null, text)
    }
  })

  it('says why text cannot be JSON: empty, only whitespace, or no value at its start', () => {
    assert.equal(jsonStartProblem(''), 'it is empty')
    assert.equal(jsonStartProblem(' \n\t\r'), 'it is empty')
    assert.equal(jsonStartProblem('x'), 'it starts with "x"')
    assert.equal(jsonStartProblem('  <html>'), 'it starts with "<"')
    // A byte-order mark, a form feed and a non-breaking space are not JSON's whitespace.
    assert.equal(jsonStartProblem('\uFEFF{}'), 'it starts with U+FEFF')
    assert.equal(jsonStartProblem('\f{}'), 'it starts with U+000C')
    assert.equal(jsonStartProblem('\u00a0{}'), 'it starts with U+00A0')
    // Shown by code, never as itself: a bidirectional override would turn the message around.
    assert.equal(jsonStartProblem('\u202e{}'), 'it starts with U+202E')
    assert.equal(jsonStartProblem('\ud83d\ude00'), 'it starts with U+1F600')
    assert.equal(jsonStartProblem('\\x'), 'it starts with "\\\\"')
  })

  it('agrees with JSON.parse: what it refuses, JSON.parse refuses', () => {
    for (let c = 0; c < 0x3000; c++) {
      const text = `${String.fromCharCode(c)}1`
      if (jsonStartProblem(text) === null) continue
      assert.throws(() => JSON.parse(text), SyntaxError, JSON.stringify(text))
    }
  })
})

describe('parseJsonRpcText on text that cannot be JSON', () => {
  it('answers a parse error without asking JSON.parse', () => {
    const parse = mock.method(JSON, 'parse')
    try {
      for (const text of ['', ' ', 'x', 'data', '<html>', 'event: ping']) {
        const read = parseJsonRpcText(text)
        assert.ok(isBodyProblem(read), text)
        assert.equal(read.policy, 'parse_error')
        assert.match(read.reason, /^not valid JSON: it /)
      }
      assert.equal(parse.mock.callCount(), 0)
    } finally {
      parse.mock.restore()
    }
  })

  it('still reads JSON-RPC, and refuses what JSON.parse refuses past the first character', () => {
    const read = parseJsonRpcText(' {"jsonrpc":"2.0","id":1,"result":{}}')
    assert.ok(!isBodyProblem(read) && read.messages[0]!.kind === 'response')
    const broken = parseJsonRpcText('{"jsonrpc":')
    assert.ok(isBodyProblem(broken) && broken.policy === 'parse_error')
    const scalar = parseJsonRpcText('1')
    assert.ok(isBodyProblem(scalar) && scalar.policy === 'invalid_request')
  })
})
