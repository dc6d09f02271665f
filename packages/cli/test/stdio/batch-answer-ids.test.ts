/**
 * The answer ids of a batch line too long to read, read as its bytes pass: only the batch's
 * member objects' own ids, of answers only, decoded as `JSON.parse` reads them, in parts split
 * anywhere; nothing from a line that is not JSON; and a bound on what is kept.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  BatchAnswerIds,
  MAX_CUT_BATCH_IDS,
  MAX_CUT_ID_BYTES,
  type BatchAnswers,
} from '../../src/stdio/batch-answer-ids.js'

/** What a scan finds of a batch that is not JSON. */
const none = { ids: [], left: 0, requests: [], requestsLeft: 0, json: false, batch: true }

/** Scan `text` fed in parts of `size` bytes. */
function scan(text: string, size = 1 << 16): BatchAnswers | null {
  const bytes = Buffer.from(text)
  const s = new BatchAnswerIds()
  for (let at = 0; at < bytes.length; at += size) s.push(bytes.subarray(at, at + size))
  return s.finish()
}

describe('BatchAnswerIds', () => {
  it("takes the batch's answers' own ids, whatever the parts, and no other", () => {
    const line = JSON.stringify([
      { jsonrpc: '2.0', result: { id: 90, nested: [{ id: 91 }] }, id: 1 },
      { jsonrpc: '2.0', id: 'a"b\\c\u00e9\n', error: { code: 1, message: 'x', data: { id: 92 } } },
      // The server's own request and notification: their ids are not answers'.
      { jsonrpc: '2.0', id: 93, method: 'sampling/createMessage', params: { id: 94 } },
      { jsonrpc: '2.0', method: 'notifications/message', params: { id: 95 } },
      // An answer whose id is only nested, and one with no id.
      { jsonrpc: '2.0', result: { id: 96 } },
      { jsonrpc: '2.0', error: { code: 1, message: 'no id', id: 97 }, id: null },
      // Not messages.
      [{ id: 98, result: {} }],
      'id',
      7,
      { jsonrpc: '2.0', result: {}, id: 1 },
    ])
    // Written with escapes, and a member named `id` with an escape.
    const escaped = line.replace('"id":1}', '"\\u0069d" : 1 }').replace('"a\\"b', '"\\u0061\\"b')
    for (const text of [line, escaped]) {
      for (const size of [1, 2, 3, 7, 1 << 16]) {
        const found = scan(` ${text}\r`, size)
        const want = { ...none, ids: [1, 'a"b\\c\u00e9\n'], requests: [93], json: true }
        assert.deepEqual(found, want, `${size}`)
      }
    }
  })

  it('reads ids as JSON.parse reads them, the last of a repeated one, none it would round', () => {
    const line =
      '[{"result":1,"id":2.0},{"id":3,"result":1,"id":4},{"result":1,"id":1e400},' +
      '{"result":1,"id":9007199254740993},{"result":1,"id":true},{"result":1,"id":{"a":5}},' +
      '{"result":1,"id":[6]},{"result":1,"id":-7},{"result":1,"id":"8"},{"result":1,"id":08}]'
    assert.deepEqual(scan(line), { ...none, ids: [2, 4, -7, '8'], json: true })
  })

  it('reads on past elements that are not messages, whatever they hold', () => {
    // An array element holding an object or an array (invalid elements, which the normal path
    // reports one by one) was taken for a bracket mismatch, and the whole line for not JSON: no
    // answer of it got its error (found by a hostile review).
    for (const element of ['[{}]', '[[]]', '[{"a":[{}]}]', '[1,{"b":{}}]']) {
      for (const line of [
        `[${element},{"id":1,"result":1}]`,
        `[{"id":2,"result":{}},${element},{"id":1,"result":1}]`,
        `[{"id":2,"result":[]},${element},{"id":1,"result":1}]`,
      ]) {
        const want = line.includes('"id":2') ? [2, 1] : [1]
        for (const size of [1, 1 << 16]) {
          assert.deepEqual(scan(line, size), { ...none, ids: want, json: true }, line)
        }
      }
    }
    // Mismatched brackets inside such an element are still not JSON.
    for (const broken of ['[[{]],{"id":1,"result":1}]', '[[[}],{"id":1,"result":1}]']) {
      assert.deepEqual(scan(broken), { ...none, json: false }, broken)
    }
  })

  it('gives nothing for a line that is not a message or a batch, or not JSON', () => {
    assert.equal(scan('not json "id":1 [{"id":1,"result":1}]'), null)
    assert.equal(scan('42'), null)
    assert.equal(scan('   '), null)
    for (const broken of [
      '[{"id":1,"result":{}}',
      '[{"id":1,"result":{}}] [',
      '[{"id":1,"result":{]}]',
      '[{"id":1,"result":[}]}]',
      '[{"id":1 "result":1}]',
      '[{"id":1,,"result":1}]',
      '[{"id":1,"result":1,}]',
      '[{"id"::1,"result":1}]',
      '[{1:1,"id":1,"result":1}]',
      '[{"id":1,"result":"abc]',
      '[{"id":1,"result":1}}]',
      '[{"id":1,"result":1}],x',
    ]) {
      assert.deepEqual(scan(broken), none, broken)
    }
    for (const broken of [
      '{"id":1,"method":"ping"',
      '{"id":1,"method":"ping"}}',
      '{"id":1,"method":"ping"} {',
      '{"id":1 "method":"ping"}',
      '{"id":1,"method":"ping","params":{]}',
      '{"id":1,"method":"ping","params":"abc}',
    ]) {
      assert.deepEqual(scan(broken), { ...none, batch: false }, broken)
    }
  })

  it(`keeps at most ${MAX_CUT_BATCH_IDS} distinct ids of at most ${MAX_CUT_ID_BYTES} bytes`, () => {
    const answers: string[] = []
    for (let i = 0; i < MAX_CUT_BATCH_IDS + 5; i++) answers.push(`{"result":{},"id":${i}}`)
    // Repeats take no room; a long id is counted, not kept.
    answers.splice(1, 0, '{"result":{},"id":0}', '{"result":{},"id":0}')
    answers.splice(3, 0, `{"result":{},"id":"${'x'.repeat(MAX_CUT_ID_BYTES - 1)}"}`)
    answers.splice(4, 0, `{"result":{},"id":"${'x'.repeat(MAX_CUT_ID_BYTES - 2)}"}`)
    const found = scan(`[${answers.join(',')}]`)!
    assert.equal(found.ids.length, MAX_CUT_BATCH_IDS)
    assert.deepEqual(found.ids.slice(0, 3), [0, 'x'.repeat(MAX_CUT_ID_BYTES - 2), 1])
    assert.equal(found.ids.at(-1), MAX_CUT_BATCH_IDS - 2)
    assert.equal(found.left, 7)
    // A number as long as a string is bounded the same way.
    const long = scan(`[{"result":{},"id":${'1'.repeat(MAX_CUT_ID_BYTES + 1)}}]`)
    assert.deepEqual(long, { ...none, left: 1, json: true })
  })

  it("takes the server's own requests' top-level ids, of a single message or a batch", () => {
    const request = {
      jsonrpc: '2.0',
      id: 'r\u0000"\\',
      method: 'sampling/createMessage',
      params: { id: 90, messages: [{ id: 91 }] },
    }
    const single = { ...none, requests: ['r\u0000"\\'], json: true, batch: false }
    for (const size of [1, 3, 1 << 16]) {
      assert.deepEqual(scan(` ${JSON.stringify(request)} \r`, size), single)
    }
    // The id last, as the TypeScript SDK writes it, after a nested one; written with escapes.
    const last = '{"jsonrpc":"2.0","method":"roots/list","params":{"id":92},"\\u0069d":"\\u0041"}'
    assert.deepEqual(scan(last), { ...single, requests: ['A'] })
    // An answer of a single message is read too, as are both kinds in a batch; not notifications.
    assert.deepEqual(scan('{"id":5,"result":{"id":6}}'), { ...single, ids: [5], requests: [] })
    const notification = '{"jsonrpc":"2.0","method":"notifications/message","params":{"id":7}}'
    assert.deepEqual(scan(notification), { ...single, requests: [] })
    const batch = `[{"id":8,"result":{}},${JSON.stringify(request)},${notification},{"id":9,"method":"ping"}]`
    assert.deepEqual(scan(batch), { ...none, ids: [8], requests: ['r\u0000"\\', 9], json: true })
  })

  it(`keeps at most ${MAX_CUT_BATCH_IDS} request ids, each of at most ${MAX_CUT_ID_BYTES} bytes`, () => {
    const requests: string[] = []
    for (let i = 0; i < MAX_CUT_BATCH_IDS + 5; i++) requests.push(`{"method":"ping","id":${i}}`)
    requests.splice(1, 0, `{"method":"ping","id":"${'x'.repeat(MAX_CUT_ID_BYTES)}"}`)
    const found = scan(`[${requests.join(',')}]`)!
    assert.equal(found.requests.length, MAX_CUT_BATCH_IDS)
    assert.equal(found.requests.at(-1), MAX_CUT_BATCH_IDS - 1)
    assert.equal(found.requestsLeft, 6)
    assert.deepEqual(found.ids, [])
  })
})
