// Which WebSocket masking keys burrow uses: all-zero over TLS and on loopback, random otherwise.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { frameMaskFor } from '../../src/tunnel/frame-mask.js'

function keyFrom(generate: (mask: Buffer) => void): number[] {
  const mask = Buffer.from([9, 9, 9, 9])
  generate(mask)
  return [...mask]
}

describe('frameMaskFor', () => {
  it('uses all-zero keys over TLS, where no intermediary reads the frames', () => {
    const generate = frameMaskFor('wss://broker.example.com')
    assert.ok(generate)
    assert.deepEqual(keyFrom(generate), [0, 0, 0, 0])
  })

  it('uses all-zero keys on the loopback interface', () => {
    for (const url of [
      'ws://127.0.0.1:7100',
      'ws://127.8.9.10:7100',
      'ws://localhost:7100',
      'ws://broker.localhost:7100',
      'ws://[::1]:7100',
      'ws://[::ffff:127.0.0.1]:7100',
    ]) {
      const generate = frameMaskFor(url)
      assert.ok(generate, url)
      assert.deepEqual(keyFrom(generate), [0, 0, 0, 0], url)
    }
  })

  it("keeps ws's random keys on plain ws: to another host", () => {
    for (const url of [
      'ws://broker.example.com',
      'ws://10.0.0.5:7100',
      'ws://127.0.0.1.example.com',
      'ws://localhost.example.com',
      'ws://[::2]:7100',
    ]) {
      assert.equal(frameMaskFor(url), undefined, url)
    }
  })
})
