// The broker's answer to a refused upgrade, from a real HTTP server: a refused key stops the
// client with the envelope's reason, a throttle says how long to wait, and anything else is
// described by its status.
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { createServer, get, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { readUpgradeRefusal } from '../../src/tunnel/upgrade-refusal.js'

const ENVELOPE = (reason: string) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: null,
    error: { code: -32000, message: 'x', data: { reason } },
  })

describe('readUpgradeRefusal', () => {
  let server: Server
  let port: number

  before(async () => {
    server = createServer((req, res) => {
      const [status, headers, body] = {
        '/key': [401, {}, ENVELOPE('unknown tunnel key')],
        '/slow': [429, { 'retry-after': '7' }, ENVELOPE('too many wrong keys')],
        '/long': [429, { 'retry-after': '99999' }, ''],
        '/plain': [503, {}, 'x'.repeat(100_000)],
      }[req.url ?? ''] as [number, Record<string, string>, string]
      res.writeHead(status, headers).end(body)
    })
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    port = (server.address() as AddressInfo).port
  })
  after(() => server.close())

  const answer = async (path: string) => {
    const req = get({ host: '127.0.0.1', port, path })
    const [res] = (await once(req, 'response')) as [IncomingMessage]
    return readUpgradeRefusal(res)
  }

  it('stops on a refused key, with the reason', async () => {
    assert.deepEqual(await answer('/key'), {
      auth: true,
      detail: 'unknown tunnel key',
      retryAfterMs: 0,
    })
  })

  it('waits as long as a throttle asks, at most five minutes', async () => {
    assert.deepEqual(await answer('/slow'), {
      auth: false,
      detail: 'too many wrong keys',
      retryAfterMs: 7000,
    })
    assert.equal((await answer('/long')).retryAfterMs, 300_000)
  })

  it('names the status of an answer that is no envelope', async () => {
    assert.deepEqual(await answer('/plain'), {
      auth: false,
      detail: 'broker answered HTTP 503',
      retryAfterMs: 0,
    })
  })
})
