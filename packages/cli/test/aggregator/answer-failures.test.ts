// The words an HTTP upstream's failed answer is told to the agent in: what a 202 or a redirect
// cannot carry (the redirect's target shown without its credentials or query), why a JSON answer
// did not answer, and an HTTP error's JSON-RPC error passed on or its text quoted.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { Dispatcher } from 'undici'
import {
  httpErrorAnswer,
  unanswerable,
  unansweredJson,
} from '../../src/aggregator/answer-failures.js'

const base = new URL('http://127.0.0.1:3000/mcp')
const head = (statusCode: number, headers: Record<string, string> = {}) =>
  ({ statusCode, headers }) as unknown as Dispatcher.ResponseData

describe('unanswerable', () => {
  it('says a 202 and a redirect cannot answer a request, and nothing of other answers', () => {
    assert.equal(unanswerable(head(202), base), 'answered the request with 202 and no response')
    for (const status of [200, 201, 204, 400, 500])
      assert.equal(unanswerable(head(status), base), null)
    assert.equal(
      unanswerable(head(302), base),
      'answered the request with a redirect (HTTP 302), which burrow does not follow',
    )
  })

  it('names where a redirect leads, without its credentials or query', () => {
    const away = head(307, { location: 'https://ann:pa55@evil.example/x?key=s3cret' })
    assert.equal(
      unanswerable(away, base),
      'answered the request with a redirect (HTTP 307 to https://evil.example/x?…), which burrow does not follow',
    )
    assert.match(
      unanswerable(head(308, { location: '/moved' }), base)!,
      /to http:\/\/127\.0\.0\.1:3000\/moved\)/,
    )
    assert.match(unanswerable(head(301, { location: 'http://[' }), base)!, /to an invalid location/)
  })
})

describe('unansweredJson', () => {
  it('says why a JSON answer did not answer its request', () => {
    assert.equal(
      unansweredJson(200, ' \n', null),
      'answered the request with HTTP 200 and an empty body',
    )
    assert.equal(
      unansweredJson(200, '{', 'parse_error'),
      'unreadable JSON in the answer (HTTP 200)',
    )
    assert.equal(
      unansweredJson(201, '{}', 'invalid_request'),
      'the answer is not JSON-RPC (HTTP 201)',
    )
    assert.equal(
      unansweredJson(200, '{"jsonrpc":"2.0","method":"x"}', null),
      'answered the request with HTTP 200 and no response to it',
    )
  })
})

describe('httpErrorAnswer', () => {
  it("passes the body's JSON-RPC error on, or quotes the body", () => {
    const body = '{"error":{"code":-32602,"message":"bad args"}}'
    assert.deepEqual(httpErrorAnswer(1, 400, body, 'http://h/mcp'), {
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32602, message: 'bad args' },
    })
    assert.deepEqual(httpErrorAnswer(2, 500, 'kaput', 'http://h/mcp'), {
      jsonrpc: '2.0',
      id: 2,
      error: { code: -32000, message: 'HTTP 500 from http://h/mcp: kaput' },
    })
  })
})
