// Golden frames and hostile input for the tunnel codec.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  decodeFrame,
  encodeFrame,
  FRAME_TYPE,
  MAX_CHUNK_BYTES,
  MAX_FRAME_BYTES,
  ProtocolError,
  RESET_CODE,
  GOAWAY_CODE,
  type Frame,
} from '../src/index.js'

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex')

describe('encodeFrame golden bytes', () => {
  it('DATA with FIN', () => {
    const f: Frame = { type: 'data', streamId: 3, chunk: Buffer.from('hi'), fin: true }
    assert.equal(hex(encodeFrame(f)), '0501' + '00000003' + '6869')
  })
  it('WINDOW on the connection', () => {
    assert.equal(
      hex(encodeFrame({ type: 'window', streamId: 0, credit: 65536 })),
      '0600' + '00000000' + '00010000',
    )
  })
  it('RST with reason', () => {
    const bytes = encodeFrame({ type: 'rst', streamId: 5, code: RESET_CODE.cancel, reason: 'gone' })
    assert.equal(hex(bytes), '0700' + '00000005' + '00000001' + Buffer.from('gone').toString('hex'))
  })
  it('PING and GOAWAY', () => {
    assert.equal(
      hex(encodeFrame({ type: 'ping', payload: 258 })),
      '0800' + '00000000' + '0000000000000102',
    )
    const g = encodeFrame({
      type: 'goaway',
      lastStreamId: 7,
      code: GOAWAY_CODE.replaced,
      reconnectAfterMs: 1000,
    })
    assert.equal(hex(g), '0a00' + '00000000' + '00000007' + '00000001' + '000003e8')
  })
  it('OPEN with inline body: u16 head length, JSON head, body', () => {
    const bytes = encodeFrame({
      type: 'open',
      streamId: 1,
      head: { method: 'POST', path: '/mcp', headers: [['a', 'b']] },
      body: Buffer.from('{}'),
      fin: true,
    })
    const meta = '{"m":"POST","p":"/mcp","h":[["a","b"]]}'
    const expected =
      '0301' +
      '00000001' +
      meta.length.toString(16).padStart(4, '0') +
      Buffer.from(meta).toString('hex') +
      '7b7d'
    assert.equal(hex(bytes), expected)
  })
})

describe('decodeFrame round trip', () => {
  const frames: Frame[] = [
    { type: 'hello', hello: { version: 1, agent: 'burrow/0.1.0', resume: 'tok', name: 'files' } },
    {
      type: 'welcome',
      welcome: {
        version: 1,
        tunnelId: 't',
        publicUrl: 'http://a--b.localhost:7100',
        resumeToken: 'r',
        resumed: false,
        graceSecs: 30,
        heartbeatMs: 15000,
      },
    },
    {
      type: 'open',
      streamId: 1,
      head: { method: 'GET', path: '/mcp?x=1', headers: [] },
      fin: true,
    },
    {
      type: 'response',
      streamId: 1,
      head: { status: 200, headers: [['content-type', 'text/event-stream']] },
      fin: false,
    },
    { type: 'data', streamId: 9, chunk: Buffer.alloc(MAX_CHUNK_BYTES, 1), fin: false },
    { type: 'window', streamId: 9, credit: 1 },
    { type: 'rst', streamId: 9, code: RESET_CODE.upstream, reason: 'ECONNREFUSED' },
    { type: 'pong', payload: Date.now() },
    { type: 'goaway', lastStreamId: 0, code: GOAWAY_CODE.drain, reconnectAfterMs: 0 },
  ]
  for (const frame of frames) {
    it(frame.type, () => {
      const decoded = decodeFrame(encodeFrame(frame))
      assert.deepEqual(JSON.parse(JSON.stringify(decoded)), JSON.parse(JSON.stringify(frame)))
    })
  }
})

describe('decodeFrame rejects untrusted bytes with ProtocolError', () => {
  const reject = (bytes: Uint8Array, code: string) =>
    assert.throws(
      () => decodeFrame(bytes),
      (err: unknown) => err instanceof ProtocolError && err.code === code,
    )

  it('truncated header', () => reject(Buffer.from([5, 0, 0]), 'truncated'))
  it('oversized frame', () => reject(Buffer.alloc(MAX_FRAME_BYTES + 1), 'too_large'))
  it('unknown type', () => reject(Buffer.from([0x7f, 0, 0, 0, 0, 1]), 'unknown_type'))
  it('unknown flags', () => reject(Buffer.from([FRAME_TYPE.data, 0x80, 0, 0, 0, 1]), 'bad_payload'))
  it('DATA on stream 0', () =>
    reject(Buffer.from([FRAME_TYPE.data, 0, 0, 0, 0, 0, 1]), 'bad_stream'))
  it('PING on a stream', () =>
    reject(Buffer.from([FRAME_TYPE.ping, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0]), 'bad_stream'))
  it('truncated WINDOW', () =>
    reject(Buffer.from([FRAME_TYPE.window, 0, 0, 0, 0, 1, 0, 0]), 'truncated'))
  it('zero WINDOW credit', () =>
    reject(Buffer.from([FRAME_TYPE.window, 0, 0, 0, 0, 1, 0, 0, 0, 0]), 'bad_payload'))
  it('oversized DATA', () => {
    const b = Buffer.alloc(6 + MAX_CHUNK_BYTES + 1)
    b[0] = FRAME_TYPE.data
    b[5] = 1
    reject(b, 'too_large')
  })
  it('OPEN head length beyond the frame', () =>
    reject(Buffer.from([FRAME_TYPE.open, 0, 0, 0, 0, 1, 0, 50, 0x7b]), 'truncated'))
  it('OPEN head that is not JSON', () =>
    reject(Buffer.from([FRAME_TYPE.open, 0, 0, 0, 0, 1, 0, 1, 0x7b]), 'bad_payload'))
  it('OPEN head with a bad method', () => {
    const meta = Buffer.from('{"m":"po st","p":"/mcp","h":[]}')
    reject(
      Buffer.concat([Buffer.from([FRAME_TYPE.open, 0, 0, 0, 0, 1, 0, meta.length]), meta]),
      'bad_payload',
    )
  })
  it('RESPONSE with an impossible status', () => {
    const meta = Buffer.from('{"s":99,"h":[]}')
    reject(
      Buffer.concat([Buffer.from([FRAME_TYPE.response, 0, 0, 0, 0, 1, 0, meta.length]), meta]),
      'bad_payload',
    )
  })
  it('headers that are not string pairs', () => {
    const meta = Buffer.from('{"s":200,"h":[["a",1]]}')
    reject(
      Buffer.concat([Buffer.from([FRAME_TYPE.response, 0, 0, 0, 0, 1, 0, meta.length]), meta]),
      'bad_payload',
    )
  })
  it('unknown RST code', () =>
    reject(Buffer.from([FRAME_TYPE.rst, 0, 0, 0, 0, 1, 0, 0, 0, 99]), 'bad_payload'))
  it('HELLO without version', () =>
    reject(
      Buffer.concat([Buffer.from([FRAME_TYPE.hello, 0, 0, 0, 0, 0]), Buffer.from('{"agent":"x"}')]),
      'bad_payload',
    ))
  it('never throws anything but ProtocolError on random bytes', () => {
    let seed = 42
    const rand = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % 256
    for (let i = 0; i < 5000; i++) {
      const len = rand() % 64
      const b = Buffer.alloc(len)
      for (let j = 0; j < len; j++) b[j] = rand()
      if (len > 0) b[0] = b[0]! % 12
      try {
        decodeFrame(b)
      } catch (err) {
        assert.ok(err instanceof ProtocolError, `random input raised ${String(err)}`)
      }
    }
  })
})
