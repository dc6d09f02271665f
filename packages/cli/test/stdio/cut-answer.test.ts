import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { cutAnswerError, cutAnswerId } from '../../src/stdio/cut-answer.js'

const ends = (head: string, tail: string) => ({ head: Buffer.from(head), tail: Buffer.from(tail) })

describe('cutAnswerId', () => {
  it('reads an id written before the result', () => {
    assert.equal(cutAnswerId(ends('{"jsonrpc":"2.0","id":3,"result":{"content":[', ']}}')), 3)
    assert.equal(cutAnswerId(ends(' { "id" : "a\\"b" , "result": [', '')), 'a"b')
  })

  it('reads an id written last, as the TypeScript SDK does', () => {
    assert.equal(cutAnswerId(ends('{"result":{"content":[', '}]},"jsonrpc":"2.0","id":7}')), 7)
    assert.equal(cutAnswerId(ends('{"result":{', 'x"}, "id": "k-1" }\r')), 'k-1')
  })

  it('finds nothing in a request, a nested id, or text that is not a message', () => {
    assert.equal(
      cutAnswerId(ends('{"method":"sampling/createMessage","id":1,"params":{', '}}')),
      undefined,
    )
    assert.equal(cutAnswerId(ends('{"result":{"a":', '{"id":5}}}')), undefined)
    assert.equal(cutAnswerId(ends('{"result":"', ',\\"id\\":5}"}')), undefined)
    // A server's own request, as the Rust and Go SDKs write it (id before method or params).
    const rust = '{"jsonrpc":"2.0","id":5,"method":"sampling/createMessage","params":{"messages":['
    assert.equal(cutAnswerId(ends(rust, '"}]}}')), undefined)
    const go = '{"jsonrpc":"2.0","id":5,"params":{"messages":['
    assert.equal(cutAnswerId(ends(go, ']},"method":"sampling/createMessage"}')), undefined)
    assert.equal(cutAnswerId(ends('xxxx', 'xxxx')), undefined)
    assert.equal(cutAnswerId(ends('{"result":[', '],"id":1.5}')), undefined)
    assert.equal(cutAnswerId(ends('{"result":[', '],"id":12345678901234567890}')), undefined)
  })
})

describe('cutAnswerError', () => {
  it('says how long the answer was and the bound', () => {
    assert.deepEqual(cutAnswerError(7, 2_000, 1_000), {
      jsonrpc: '2.0',
      id: 7,
      error: {
        code: -32603,
        message:
          "the server's answer is 2000 bytes long, more than the 1000 bytes burrow reads from one line; it was not forwarded",
      },
    })
  })
})
