// The tunnel's access in WELCOME and NOTICE, and HELLO's features: round trips, frames from
// brokers and clients that do not know them, and hostile values.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  decodeFrame,
  encodeFrame,
  FEATURE_NOTICE,
  FRAME_TYPE,
  MAX_CONTROL_BYTES,
  ProtocolError,
  type Frame,
} from '../src/index.js'

const welcome = {
  version: 1,
  tunnelId: 'tun_1',
  publicUrl: 'http://a--b.localhost:7100',
  resumeToken: 'r',
  resumed: false,
  graceSecs: 30,
  heartbeatMs: 15000,
}

/** A stream-0 frame of `type` whose payload is `json` as written. */
const raw = (type: number, json: string) =>
  Buffer.concat([Buffer.from([type, 0, 0, 0, 0, 0]), Buffer.from(json)])

const refused = (bytes: Uint8Array, code = 'bad_payload') =>
  assert.throws(
    () => decodeFrame(bytes),
    (err: unknown) => err instanceof ProtocolError && err.code === code && err.streamId === 0,
  )

const access = { mode: 'token', url: 'http://localhost:7100/dashboard/tunnels/tun_1/access' }

describe('WELCOME access', () => {
  it('round-trips', () => {
    const frame: Frame = { type: 'welcome', welcome: { ...welcome, access } }
    assert.deepEqual(decodeFrame(encodeFrame(frame)), frame)
  })
  it('an older broker leaves it out: the WELCOME decodes without it', () => {
    const decoded = decodeFrame(raw(FRAME_TYPE.welcome, JSON.stringify(welcome)))
    assert.equal(decoded.type, 'welcome')
    assert.equal('access' in (decoded as { welcome: object }).welcome, false)
  })
  it('keeps a mode this client does not know (a newer broker), and drops fields it does not', () => {
    const decoded = decodeFrame(
      raw(
        FRAME_TYPE.welcome,
        JSON.stringify({ ...welcome, access: { mode: 'sso', extra: 1 }, later: true }),
      ),
    )
    assert.deepEqual(decoded, { type: 'welcome', welcome: { ...welcome, access: { mode: 'sso' } } })
  })
  it('the url is optional', () => {
    const frame: Frame = { type: 'welcome', welcome: { ...welcome, access: { mode: 'oauth' } } }
    assert.deepEqual(decodeFrame(encodeFrame(frame)), frame)
  })
  const hostile: [string, unknown][] = [
    ['not an object', 'token'],
    ['an array', ['token']],
    ['null', null],
    ['a mode that is no string', { mode: 7 }],
    ['no mode', { url: access.url }],
    ['an empty mode', { mode: '' }],
    ['a mode of 33 characters', { mode: 'a'.repeat(33) }],
    ['a mode with a terminal escape', { mode: 'oauth\u001b[2J' }],
    ['a mode in capitals', { mode: 'OAUTH' }],
    ['a url that is no string', { mode: 'oauth', url: 1 }],
    ['a url that is not http(s)', { mode: 'oauth', url: 'javascript:alert(1)' }],
    ['a url with a space', { mode: 'oauth', url: 'http://x/ y' }],
    ['a url with a terminal escape', { mode: 'oauth', url: 'http://x/\u001b]0;pwned\u0007' }],
    ['a url with a direction mark', { mode: 'oauth', url: 'http://x/\u202e' }],
    ['a url of 2,049 characters', { mode: 'oauth', url: `http://x/${'a'.repeat(2040)}` }],
  ]
  for (const [what, value] of hostile) {
    it(`refuses ${what}`, () =>
      refused(raw(FRAME_TYPE.welcome, JSON.stringify({ ...welcome, access: value }))))
  }
  it('refuses a WELCOME over the control limit', () =>
    refused(
      raw(
        FRAME_TYPE.welcome,
        JSON.stringify({ ...welcome, access, pad: 'x'.repeat(MAX_CONTROL_BYTES) }),
      ),
      'too_large',
    ))
  it('refuses to encode an access it would refuse to decode', () => {
    assert.throws(
      () =>
        encodeFrame({
          type: 'welcome',
          welcome: { ...welcome, access: { mode: 'oauth', url: 'file:///etc/passwd' } },
        }),
      RangeError,
    )
  })
})

describe('NOTICE', () => {
  it('is frame type 11 on stream 0, JSON', () => {
    const bytes = encodeFrame({ type: 'notice', notice: { access } })
    assert.equal(bytes[0], 11)
    assert.equal(FRAME_TYPE.notice, 11)
    assert.equal(bytes.readUInt32BE(2), 0)
    assert.deepEqual(JSON.parse(bytes.subarray(6).toString()), { access })
  })
  it('round-trips, with or without access', () => {
    for (const frame of [
      { type: 'notice', notice: { access } },
      { type: 'notice', notice: {} },
    ] as Frame[]) {
      assert.deepEqual(decodeFrame(encodeFrame(frame)), frame)
    }
  })
  it('ignores fields it does not know (a newer broker may say more)', () => {
    assert.deepEqual(decodeFrame(raw(FRAME_TYPE.notice, '{"access":{"mode":"public"},"x":[1]}')), {
      type: 'notice',
      notice: { access: { mode: 'public' } },
    })
  })
  it('refuses what is not a JSON object', () => {
    refused(raw(FRAME_TYPE.notice, 'nope'))
    refused(raw(FRAME_TYPE.notice, '[]'))
    refused(raw(FRAME_TYPE.notice, '"token"'))
  })
  it('refuses a malformed access', () =>
    refused(raw(FRAME_TYPE.notice, '{"access":{"mode":"to ken"}}')))
  it('refuses a NOTICE on a stream', () =>
    refused(
      Buffer.concat([Buffer.from([FRAME_TYPE.notice, 0, 0, 0, 0, 1]), Buffer.from('{}')]),
      'bad_stream',
    ))
  it('refuses a NOTICE over the control limit', () =>
    refused(
      raw(FRAME_TYPE.notice, JSON.stringify({ pad: 'x'.repeat(MAX_CONTROL_BYTES) })),
      'too_large',
    ))
  it('refuses flags on a NOTICE', () =>
    refused(Buffer.concat([Buffer.from([FRAME_TYPE.notice, 2, 0, 0, 0, 0]), Buffer.from('{}')])))
})

describe('HELLO features', () => {
  const hello = { version: 1, agent: 'burrow/0.2.0' }
  it('round-trip', () => {
    const frame: Frame = { type: 'hello', hello: { ...hello, features: [FEATURE_NOTICE] } }
    assert.deepEqual(decodeFrame(encodeFrame(frame)), frame)
    assert.equal(FEATURE_NOTICE, 'notice')
  })
  it('an older client sends none', () => {
    const decoded = decodeFrame(raw(FRAME_TYPE.hello, JSON.stringify(hello)))
    assert.deepEqual(decoded, { type: 'hello', hello })
  })
  it('keeps features this broker does not know (it acts on those it knows)', () => {
    const decoded = decodeFrame(
      raw(FRAME_TYPE.hello, JSON.stringify({ ...hello, features: ['later', 'notice'] })),
    )
    assert.deepEqual(decoded, { type: 'hello', hello: { ...hello, features: ['later', 'notice'] } })
  })
  const hostile: [string, unknown][] = [
    ['not a list', 'notice'],
    ['a list with a number', ['notice', 1]],
    ['17 features', Array.from({ length: 17 }, (_, i) => `f${i}`)],
    ['a feature of 33 characters', ['a'.repeat(33)]],
    ['a feature with a control character', ['no\u0000tice']],
  ]
  for (const [what, value] of hostile) {
    it(`refuses ${what}`, () =>
      refused(raw(FRAME_TYPE.hello, JSON.stringify({ ...hello, features: value }))))
  }
})
