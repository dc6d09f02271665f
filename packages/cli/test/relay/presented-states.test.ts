import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { presentedStates, UNREADABLE } from '../../src/relay/presented-states.js'

const body = (text: string) => Buffer.from(text)
const call = (params: string) =>
  body(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t",${params}}}`)

describe('presentedStates', () => {
  it('finds none in a body that does not spell the member, without reading it', () => {
    assert.deepEqual(presentedStates(body('{"jsonrpc":"2.0","id":1,"method":"ping"}')), [])
    assert.deepEqual(presentedStates(new Uint8Array(0)), [])
    // Not JSON at all, but nothing in it could present a state to any server.
    assert.deepEqual(presentedStates(body('not json')), [])
  })

  it('finds the state of a retry', () => {
    assert.deepEqual(presentedStates(call('"requestState":"abc","inputResponses":{}')), ['abc'])
  })

  it('finds the member as servers matching names without case read it', () => {
    assert.deepEqual(presentedStates(call('"REQUESTSTATE":"a"')), ['a'])
    assert.deepEqual(presentedStates(call('"requeſtState":"b"')), ['b'])
    assert.deepEqual(presentedStates(call('"RequeſtſTATE":"c"')), ['c'])
    const upper = body(
      '{"jsonrpc":"2.0","id":7,"method":"tools/call","Params":{"requestState":"d"}}',
    )
    // The edge refuses a misspelt `params`, and so does the relay.
    assert.equal(presentedStates(upper), UNREADABLE)
  })

  it('finds the member written with escapes', () => {
    assert.deepEqual(presentedStates(call('"request\\u0053tate":"e"')), ['e'])
  })

  it('finds the states of a batch, and calls two spellings in one message unreadable', () => {
    // A case-folding server reads the last of them, JSON.parse both: the edge refuses such a
    // message, and so does the relay.
    assert.equal(presentedStates(call('"requestState":"a","RequestState":"b"')), UNREADABLE)
    const batch = body(
      '[{"jsonrpc":"2.0","id":1,"method":"x","params":{"requestState":"a"}},' +
        '{"jsonrpc":"2.0","id":2,"method":"y","params":{"requestState":"b"}}]',
    )
    assert.deepEqual(presentedStates(batch), ['a', 'b'])
  })

  it('leaves states of other types and deeper members to the server', () => {
    assert.deepEqual(presentedStates(call('"requestState":42')), [])
    assert.deepEqual(presentedStates(call('"arguments":{"requestState":"mine"}')), [])
  })

  it('calls unreadable a body that may present one but cannot be read', () => {
    assert.equal(presentedStates(body('{"requestState": nope')), UNREADABLE)
    // Servers differ on which of two same-named members they read.
    assert.equal(presentedStates(call('"requestState":"a","requestState":"b"')), UNREADABLE)
  })
})
