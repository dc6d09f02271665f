// StreamedAnswers: which requests of a POST an SSE answer answered, matched as agents match
// answers, and what it leaves unanswered when it ends: nothing when the agent can resume it (an
// event carried an id), nor once an event too long to watch passed.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  MAX_WATCHED_EVENT_CHARS,
  requestIdsOf,
  StreamedAnswers,
} from '../../src/relay/streamed-answers.js'

const bytes = (text: string) => Buffer.from(text)
const event = (message: unknown, head = '') => `${head}data: ${JSON.stringify(message)}\n\n`
const result = (id: unknown) => ({ jsonrpc: '2.0', id, result: {} })

describe('requestIdsOf', () => {
  it('reads the ids of the requests of a body, none of its notifications and answers', () => {
    assert.deepEqual(requestIdsOf(bytes('{"jsonrpc":"2.0","id":3,"method":"ping"}')), [3])
    assert.deepEqual(requestIdsOf(bytes('{"jsonrpc":"2.0","method":"notifications/x"}')), [])
    assert.deepEqual(requestIdsOf(bytes('{"jsonrpc":"2.0","id":3,"result":{}}')), [])
    const batch = [
      { jsonrpc: '2.0', id: 'a', method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/x' },
      { jsonrpc: '2.0', id: 7, method: 'tools/list' },
    ]
    assert.deepEqual(requestIdsOf(bytes(JSON.stringify(batch))), ['a', 7])
    assert.deepEqual(requestIdsOf(bytes('not json')), [])
  })
})

describe('StreamedAnswers', () => {
  it('leaves nothing unanswered once each request got its answer, matched as agents match', () => {
    const answers = new StreamedAnswers([1, 'b'])
    answers.push(bytes(event(result('1'))))
    answers.push(bytes(event({ jsonrpc: '2.0', id: 'b', error: { code: 1, message: 'no' } })))
    assert.deepEqual(answers.end(), { ids: [], midEvent: false })
  })

  it('says which requests a stream that ended never answered', () => {
    const answers = new StreamedAnswers([1, 2])
    const log = { level: 'error', data: { error: 'boom', result: 'none' } }
    answers.push(bytes(event({ jsonrpc: '2.0', method: 'notifications/message', params: log })))
    answers.push(bytes(event(result(2))))
    // An answer in an event of another type is not read by agents.
    answers.push(bytes(event(result(1), 'event: other\n')))
    assert.deepEqual(answers.end(), { ids: [1], midEvent: false })
  })

  it('says when the stream stopped inside an event, which agents drop', () => {
    const answers = new StreamedAnswers([1])
    answers.push(bytes(`data: ${JSON.stringify(result(1))}\n`))
    assert.deepEqual(answers.end(), { ids: [1], midEvent: true })
    const cut = new StreamedAnswers([1])
    cut.push(bytes('data: {"jsonrpc":"2.0","id":1,"res'))
    assert.deepEqual(cut.end(), { ids: [1], midEvent: true })
  })

  it('reads answers split across chunks', () => {
    const answers = new StreamedAnswers([1])
    for (const c of event(result(1))) answers.push(bytes(c))
    assert.deepEqual(answers.end().ids, [])
  })

  it('leaves a stream the agent can resume (an event carried an id) to the agent', () => {
    const answers = new StreamedAnswers([1])
    answers.push(bytes('id: e1\nretry: 10\ndata: \n\n'))
    assert.deepEqual(answers.end(), { ids: [], midEvent: false })
  })

  it('takes an event too long to watch for the answer', () => {
    const answers = new StreamedAnswers([1])
    answers.push(bytes(`data: "${'a'.repeat(MAX_WATCHED_EVENT_CHARS)}"\n\n`))
    assert.deepEqual(answers.end().ids, [])
  })

  it('watches nothing for a POST without requests', () => {
    const answers = new StreamedAnswers([])
    answers.push(bytes('data: {}\n\n'))
    assert.deepEqual(answers.end().ids, [])
  })
})
