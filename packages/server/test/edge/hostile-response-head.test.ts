/**
 * A tunnel client is anyone with a tunnel key (a free sign-up gives one), so the heads it answers
 * with are input like any other. A real burrowd and a hand-made tunnel client over the real
 * broker: header fields Node would refuse to write (CR/LF in a value, a name that is not a token,
 * an empty name) are dropped, a value beyond Latin-1 goes as its UTF-8 bytes, and an interim
 * status (100, 101) fails that call with the refusal carrying its id. burrowd lives on, and the
 * next call through the same tunnel is answered.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import {
  decodeFrame,
  encodeFrame,
  PROTOCOL_VERSION,
  type HeaderPairs,
  type ResponseHead,
} from '@burrow/protocol'
import { WebSocket } from 'ws'
import { startService, type Service } from '../../../../test/helpers/stack.js'
import { assertRefusal } from '../helpers/assert-refusal.js'
import { edgeRequest, hostOf } from '../helpers/edge-request.js'

const ANSWER = '{"jsonrpc":"2.0","id":1,"result":{}}'
const CALL = '{"jsonrpc":"2.0","id":1,"method":"tools/list"}'

/** A tunnel client that answers every request with `next()`'s head and a JSON body. */
function hostileClient(
  service: Service,
  key: string,
  next: () => ResponseHead,
): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(service.broker, { headers: { authorization: `Bearer ${key}` } })
    ws.once('error', reject)
    ws.once('open', () =>
      ws.send(
        encodeFrame({
          type: 'hello',
          hello: { version: PROTOCOL_VERSION, agent: 'hostile-test/1' },
        }),
      ),
    )
    ws.on('message', (data: Buffer) => {
      const frame = decodeFrame(data)
      if (frame.type === 'welcome') resolve(ws)
      if (frame.type !== 'open') return
      ws.send(
        encodeFrame({
          type: 'response',
          streamId: frame.streamId,
          head: next(),
          body: Buffer.from(ANSWER),
          fin: true,
        }),
      )
    })
  })
}

describe('response heads from a hostile tunnel client', () => {
  let service: Service
  let client: WebSocket
  let host: string
  let head: ResponseHead = { status: 200, headers: [] }
  const call = () =>
    edgeRequest(service.port, host, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: CALL,
    })

  before(async () => {
    service = await startService({ BURROW_LOG: 'info' })
    const tunnel = await service.tunnel('hostile')
    host = hostOf(tunnel.publicUrl)
    client = await hostileClient(service, tunnel.key, () => head)
  })

  after(async () => {
    client?.close()
    await service?.close()
  })

  it('drops the fields Node would refuse to write, and keeps the rest', async () => {
    const headers: HeaderPairs = [
      ['content-type', 'application/json'],
      ['x-split', 'a\r\nset-cookie: planted=1'],
      ['x-lf', 'a\nb'],
      ['x-nul', 'a\u0000b'],
      ['bad name', 'v'],
      ['', 'empty name'],
      ['x-(paren)', 'v'],
      ['x-snowman', '☃ snow'],
      ['x-latin', 'café'],
      ['x-ok', 'fine'],
    ]
    head = { status: 200, headers }
    const res = await call()
    assert.equal(res.status, 200, res.text)
    assert.equal(res.text, ANSWER)
    const names: string[] = []
    for (let i = 0; i < res.rawHeaders.length; i += 2) names.push(res.rawHeaders[i]!.toLowerCase())
    for (const dropped of ['x-split', 'x-lf', 'x-nul', 'bad name', '', 'x-(paren)', 'set-cookie'])
      assert.ok(
        !names.includes(dropped),
        `${dropped || '(empty)'} was dropped: ${names.join(', ')}`,
      )
    assert.equal(res.headers['x-ok'], 'fine')
    assert.equal(res.headers['x-latin'], 'café')
    // The snowman's UTF-8 bytes, as a local server would have sent them; Node reads them as Latin-1.
    assert.equal(Buffer.from(String(res.headers['x-snowman']), 'latin1').toString('utf8'), '☃ snow')
  })

  it('refuses an interim status with the call’s id, and answers the next call', async () => {
    for (const status of [100, 101, 103]) {
      head = { status, headers: [['content-type', 'application/json']] }
      const res = await call()
      const refusal = assertRefusal(res, { policy: 'upstream_unreachable', id: 1 })
      assert.match(refusal.error.data.reason, new RegExp(`status ${status}`))
    }
    head = { status: 200, headers: [['content-type', 'application/json']] }
    const ok = await call()
    assert.equal(ok.status, 200)
    assert.equal(ok.text, ANSWER)
    assert.equal(service.proc.proc.exitCode, null, 'burrowd is still running')
  })
})
