/**
 * The session both backends build on: each agent message reaches the router with the session it
 * came in, closing reaches it once, and ids for server→client requests are fresh per session.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { RoutedSession, type SessionRouter } from '../../src/front/routed-session.js'

describe('RoutedSession', () => {
  it('hands every message to its router, with itself, and closes once', () => {
    const seen: [string, RoutedSession<string>, unknown][] = []
    const router: SessionRouter<RoutedSession<string>> = {
      request: (s, m) => seen.push(['request', s, m.id]),
      notify: (s, m) => seen.push(['notify', s, m.method]),
      respond: (s, m) => seen.push(['respond', s, m.id]),
      close: (s) => seen.push(['close', s, null]),
    }
    const sink = { deliver: () => {}, end: () => {} }
    const session = new RoutedSession<string>('s1', sink, router)
    session.request({ jsonrpc: '2.0', id: 1, method: 'ping' }, new AbortController().signal)
    session.notify({ jsonrpc: '2.0', method: 'notifications/initialized' })
    session.respond({ jsonrpc: '2.0', id: 2, result: {} })
    session.close()
    session.close()
    assert.deepEqual(seen, [
      ['request', session, 1],
      ['notify', session, 'notifications/initialized'],
      ['respond', session, 2],
      ['close', session, null],
    ])
    assert.equal(session.closed, true)
  })

  it('gives fresh ids for server→client requests, per session', () => {
    const router = { request() {}, notify() {}, respond() {}, close() {} }
    const sink = { deliver: () => {}, end: () => {} }
    const a = new RoutedSession<string>('a', sink, router)
    const b = new RoutedSession<string>('b', sink, router)
    assert.deepEqual([a.nextAskId(), a.nextAskId(), b.nextAskId()], [1, 2, 1])
  })
})
