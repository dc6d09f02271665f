/**
 * What a request whose handler failed is answered, off a tunnel's host: Redis or PostgreSQL not
 * answering in time is `503` with `Retry-After` on the API and on pages, as on a tunnel (trying
 * again shortly is what the caller should do); anything else is `500`. A Redis failure on the API
 * was a 500 (found by a hostile review).
 */
import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { silentLogger } from '@burrow/protocol'
import { answerFailure } from '../../src/http/answer-failure.js'
import { FailureLog } from '../../src/observability/failure-log.js'
import { QUERY_TIMEOUT_MESSAGE } from '../../src/store/bounded-pg-pool.js'

describe('answerFailure off a tunnel', () => {
  let server: Server
  let port: number
  /** The error the next request's handler fails with. */
  let failure = new Error('x')

  before(async () => {
    const failures = new FailureLog(silentLogger)
    server = createServer((req, res) => answerFailure(failures, req, res, failure, false))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    port = (server.address() as AddressInfo).port
  })

  after(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })

  it('answers 503 with Retry-After for Redis or the database, naming which', async () => {
    for (const [message, names] of [
      ['Command timed out', /Redis/],
      ['Connection is closed.', /Redis/],
      [QUERY_TIMEOUT_MESSAGE, /database/],
    ] as const) {
      failure = new Error(message)
      const api = await fetch(`http://127.0.0.1:${port}/api/tunnels`)
      assert.equal(api.status, 503, message)
      assert.equal(api.headers.get('retry-after'), '5')
      const body = (await api.json()) as { error: { code: string; message: string } }
      assert.equal(body.error.code, 'unavailable')
      assert.match(body.error.message, names)
      const page = await fetch(`http://127.0.0.1:${port}/dashboard`)
      assert.equal(page.status, 503, message)
      assert.equal(page.headers.get('retry-after'), '5')
      assert.match(await page.text(), names)
    }
  })

  it('answers 500 for anything else, saying it was logged', async () => {
    failure = new Error('a bug')
    const api = await fetch(`http://127.0.0.1:${port}/api/tunnels`)
    assert.equal(api.status, 500)
    assert.equal(((await api.json()) as { error: { code: string } }).error.code, 'internal')
    const page = await fetch(`http://127.0.0.1:${port}/dashboard`)
    assert.equal(page.status, 500)
    assert.doesNotMatch(await page.text(), /a bug/)
  })
})
