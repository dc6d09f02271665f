// The receiver's credit for one stream: half a window at a time, doubling for a fast reader only.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { INITIAL_STREAM_WINDOW } from '../../src/frame.js'
import { MuxStream } from '../../src/mux/mux-stream.js'
import { idleHost as host } from './idle-host.js'
import {
  MAX_STREAM_WINDOW,
  streamCredit,
  WINDOW_GROWTH_MS,
  WindowMemory,
} from '../../src/mux/stream-credit.js'

/** The reader consumed `bytes` of the stream's window; returns the credit granted back. */
function consume(stream: MuxStream, bytes: number, now: number, memory?: WindowMemory): number {
  stream.recvWindow -= bytes
  const credit = streamCredit(stream, () => now, memory)
  stream.recvWindow += credit
  return credit
}

describe('streamCredit', () => {
  it('gives nothing back until half of the window was consumed, then tops it up', () => {
    const stream = new MuxStream(1, host)
    assert.equal(consume(stream, INITIAL_STREAM_WINDOW / 2 - 1, 0), 0)
    assert.equal(consume(stream, 1, 0), INITIAL_STREAM_WINDOW / 2)
    assert.equal(stream.recvWindow, INITIAL_STREAM_WINDOW)
  })

  it('doubles the window of a reader that keeps up, up to the maximum', () => {
    const stream = new MuxStream(1, host)
    let now = 0
    for (let i = 0; i < 200; i++) {
      consume(stream, stream.recvTarget / 2, now)
      now += 1
    }
    assert.equal(stream.recvTarget, MAX_STREAM_WINDOW)
    assert.equal(stream.recvWindow, MAX_STREAM_WINDOW)
  })

  it('keeps the initial window for a slow reader', () => {
    const stream = new MuxStream(1, host)
    let now = 0
    for (let i = 0; i < 50; i++) {
      consume(stream, stream.recvTarget / 2, now)
      now += WINDOW_GROWTH_MS
    }
    assert.equal(stream.recvTarget, INITIAL_STREAM_WINDOW)
  })

  it('counts bytes the reader still holds as not consumed', () => {
    const stream = new MuxStream(1, host)
    stream.recvWindow -= INITIAL_STREAM_WINDOW
    stream.heldBytes = INITIAL_STREAM_WINDOW / 2 + 1
    assert.equal(
      streamCredit(stream, () => 0),
      0,
    )
  })

  it("opens a later stream at once to the window an earlier stream's reader earned", () => {
    const memory = new WindowMemory()
    const first = new MuxStream(1, host)
    let now = 0
    for (let i = 0; i < 200; i++) {
      consume(first, first.recvTarget / 2, now, memory)
      now += 1
    }
    assert.equal(memory.target, MAX_STREAM_WINDOW)
    const second = new MuxStream(3, host)
    assert.equal(consume(second, INITIAL_STREAM_WINDOW / 2 - 1, now, memory), 0, 'not before half')
    const credit = consume(second, 1, now, memory)
    assert.equal(credit, MAX_STREAM_WINDOW - INITIAL_STREAM_WINDOW / 2)
    assert.equal(second.recvWindow, MAX_STREAM_WINDOW)
  })

  it('remembers nothing from a slow reader', () => {
    const memory = new WindowMemory()
    const slow = new MuxStream(1, host)
    let now = 0
    for (let i = 0; i < 20; i++) {
      consume(slow, slow.recvTarget / 2, now, memory)
      now += WINDOW_GROWTH_MS + 1
    }
    assert.equal(memory.target, INITIAL_STREAM_WINDOW)
    const next = new MuxStream(3, host)
    assert.equal(consume(next, INITIAL_STREAM_WINDOW / 2, now, memory), INITIAL_STREAM_WINDOW / 2)
  })
})
