import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  nestsDeeperThan,
  tooDeepReplacement,
  tooDeepRequestReply,
} from '../../src/stdio/message-depth.js'
import { parseJsonRpcText, type JsonRpcBody } from '@burrow/protocol'

const nested = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`

describe('nestsDeeperThan', () => {
  it('counts arrays and objects, not brackets inside strings', () => {
    assert.equal(nestsDeeperThan(nested(3), 3), false)
    assert.equal(nestsDeeperThan(nested(4), 3), true)
    assert.equal(nestsDeeperThan('{"a":{"b":[1]}}', 3), false)
    assert.equal(nestsDeeperThan('{"a":{"b":[{}]}}', 3), true)
    assert.equal(nestsDeeperThan(`["${'[{'.repeat(50)}"]`, 3), false)
    assert.equal(nestsDeeperThan(`["\\\\", [[[]]]]`, 3), true)
    assert.equal(nestsDeeperThan(`["\\"[[[[", []]`, 3), false)
    // Runs of backslashes: an even one leaves the quote after it closing the string.
    assert.equal(nestsDeeperThan(`["a\\\\\\\\", [[[]]]]`, 3), true)
    assert.equal(nestsDeeperThan(`["\\\\\\"[[[[", []]`, 3), false)
    assert.equal(nestsDeeperThan(`["${'x'.repeat(10)}\\\\\\\\\\"[[[[[", []]`, 3), false)
    assert.equal(nestsDeeperThan(`[[["unterminated`, 2), true)
    assert.equal(nestsDeeperThan(`["[[[[[`, 2), false)
  })

  it('by default allows what JSON.stringify can write again', () => {
    assert.equal(nestsDeeperThan(nested(1_000)), false)
    assert.equal(nestsDeeperThan(nested(1_001)), true)
    assert.doesNotThrow(() => JSON.stringify(JSON.parse(nested(1_000))))
  })
})

describe('tooDeepReplacement', () => {
  it('answers an answer with an error for its id and drops the rest', () => {
    const body = parseJsonRpcText(
      '[{"jsonrpc":"2.0","id":"a","result":{}},{"jsonrpc":"2.0","method":"n"}]',
    ) as JsonRpcBody
    const [answer, notification] = body.messages
    assert.deepEqual(tooDeepReplacement(answer!), {
      jsonrpc: '2.0',
      id: 'a',
      error: {
        code: -32603,
        message:
          "the server's answer nests arrays and objects deeper than 1000 levels; burrow does not forward it",
      },
    })
    assert.equal(tooDeepReplacement(notification!), null)
  })
})

describe('tooDeepRequestReply', () => {
  it("answers the server's own request with an error for its id, and nothing else", () => {
    const body = parseJsonRpcText(
      '[{"jsonrpc":"2.0","id":7,"method":"sampling/createMessage","params":{}},' +
        '{"jsonrpc":"2.0","id":"a","result":{}},{"jsonrpc":"2.0","method":"n"}]',
    ) as JsonRpcBody
    const [request, answer, notification] = body.messages
    assert.deepEqual(tooDeepRequestReply(request!), {
      jsonrpc: '2.0',
      id: 7,
      error: {
        code: -32600,
        message:
          'the request nests arrays and objects deeper than 1000 levels; burrow does not forward it to the agent',
      },
    })
    assert.equal(tooDeepRequestReply(answer!), null)
    assert.equal(tooDeepRequestReply(notification!), null)
  })
})
