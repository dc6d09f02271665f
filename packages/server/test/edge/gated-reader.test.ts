/**
 * Reading a tunnel stream through a gate (a GET stream's live policy): chunks and the end pass in
 * the order they came, each once the gate is open for it; while any wait the stream is told it
 * is full, and it is resumed once they passed; a gate that fails drops what waited and reads
 * nothing more.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { DataReader, MuxStream, ResponseHead } from '@burrow/protocol'
import { readGated, type GatedReader } from '../../src/edge/gated-reader.js'

/** The reading side of a tunnel stream, driven by the test: what `readGated` uses of it. */
class DrivenStream {
  reader: DataReader | null = null
  onEnd: (() => void) | null = null
  closed = false
  /** Whether the reader said it was full and has not been resumed since. */
  blocked = false
  resumed = 0
  onResponse: ((head: ResponseHead, inline: Uint8Array | undefined, fin: boolean) => void) | null =
    null

  read(reader: DataReader, onEnd?: () => void): void {
    this.reader = reader
    this.onEnd = onEnd ?? null
  }

  resumeReading(): void {
    this.resumed++
    this.blocked = false
  }

  deliver(text: string): void {
    if (this.reader!(Buffer.from(text)) === false) this.blocked = true
  }

  end(): void {
    this.onEnd?.()
  }

  respond(inline?: string): void {
    const body = inline === undefined ? undefined : Buffer.from(inline)
    this.onResponse!({ status: 200, headers: [] }, body, false)
  }

  get asStream(): MuxStream {
    return this as unknown as MuxStream
  }
}

/** A reader noting what it got, in order. */
function noting(full = () => false) {
  const got: string[] = []
  const reader: GatedReader = {
    head: (_head, inline) =>
      void got.push(`<head${inline ? ` ${Buffer.from(inline).toString()}` : ''}>`),
    chunk: (c) => {
      got.push(Buffer.from(c).toString())
      return !full()
    },
    end: () => void got.push('<end>'),
    failed: (err) => void got.push(`<failed ${err.message}>`),
  }
  return { got, reader }
}

/** A gate the test opens: closed, its calls wait for `open()`. */
function manualGate() {
  let shut = false
  let opening: (() => void) | null = null
  let failing: ((err: Error) => void) | null = null
  let promise: Promise<void> | null = null
  const gate = () => {
    if (!shut) return true as const
    promise ??= new Promise<void>((resolve, reject) => {
      opening = resolve
      failing = reject
    })
    return promise
  }
  return {
    gate,
    shut: () => void (shut = true),
    open: async () => {
      shut = false
      opening?.()
      promise = null
      await new Promise((r) => setImmediate(r))
    },
    fail: async (message: string) => {
      failing?.(new Error(message))
      promise = null
      await new Promise((r) => setImmediate(r))
    },
  }
}

describe('readGated', () => {
  it('reads straight through without a gate', () => {
    const stream = new DrivenStream()
    const { got, reader } = noting()
    readGated(stream.asStream, null, reader)
    stream.deliver('a')
    stream.end()
    assert.deepEqual(got, ['a', '<end>'])
  })

  it('holds chunks and the end while the gate is shut, and passes them in order once open', async () => {
    const stream = new DrivenStream()
    const { got, reader } = noting()
    const g = manualGate()
    readGated(stream.asStream, g.gate, reader)
    stream.deliver('a')
    g.shut()
    stream.deliver('b')
    stream.deliver('c')
    stream.end()
    assert.deepEqual(got, ['a'])
    assert.equal(stream.blocked, true, 'no credit goes back while chunks wait')
    await g.open()
    assert.deepEqual(got, ['a', 'b', 'c', '<end>'])
  })

  it('holds a head that comes while the gate is shut, and the chunks after it, in order (hostile)', async () => {
    const stream = new DrivenStream()
    const { got, reader } = noting()
    const g = manualGate()
    readGated(stream.asStream, g.gate, reader)
    g.shut()
    // The head carries the first event in its frame: it is shaped by the policy the gate takes.
    stream.respond('a')
    stream.deliver('b')
    stream.end()
    assert.deepEqual(got, [], 'nothing passes before the gate opens, not even the head')
    assert.equal(stream.blocked, true)
    await g.open()
    assert.deepEqual(got, ['<head a>', 'b', '<end>'])

    const open = new DrivenStream()
    const noted = noting()
    readGated(open.asStream, () => true, noted.reader)
    open.respond()
    open.deliver('c')
    assert.deepEqual(noted.got, ['<head>', 'c'], 'an open gate passes the head at once')
  })

  it('fails the reading when the gate fails for the head', async () => {
    const stream = new DrivenStream()
    const { got, reader } = noting()
    const g = manualGate()
    readGated(stream.asStream, g.gate, reader)
    g.shut()
    stream.respond('a')
    stream.deliver('b')
    await g.fail('policy store down')
    assert.deepEqual(got, ['<failed policy store down>'])
  })

  it('resumes the stream once what waited passed, unless the agent is full', async () => {
    let full = false
    const stream = new DrivenStream()
    const { got, reader } = noting(() => full)
    const g = manualGate()
    readGated(stream.asStream, g.gate, reader)
    g.shut()
    stream.deliver('a')
    await g.open()
    assert.deepEqual(got, ['a'])
    assert.equal(stream.resumed, 1)
    g.shut()
    stream.deliver('b')
    full = true
    await g.open()
    assert.equal(stream.resumed, 1, "the agent's drain resumes it, not the gate")
  })

  it('drops what waited when the gate fails, and reads nothing more', async () => {
    const stream = new DrivenStream()
    const { got, reader } = noting()
    const g = manualGate()
    readGated(stream.asStream, g.gate, reader)
    g.shut()
    stream.deliver('a')
    stream.deliver('b')
    await g.fail('the policy could not be read')
    stream.deliver('c')
    stream.end()
    assert.deepEqual(got, ['<failed the policy could not be read>'])
  })

  it('fails the reading, not the process, when the gate or the reader throws (hostile)', async () => {
    const stream = new DrivenStream()
    const { got, reader } = noting()
    readGated(
      stream.asStream,
      () => {
        throw new Error('gate broke')
      },
      reader,
    )
    stream.deliver('a')
    await new Promise((r) => setImmediate(r))
    assert.deepEqual(got, ['<failed gate broke>'])

    const second = new DrivenStream()
    const g = manualGate()
    const failures: string[] = []
    readGated(second.asStream, g.gate, {
      head: () => {},
      chunk: () => {
        throw new Error('reader broke')
      },
      end: () => {},
      failed: (err) => void failures.push(err.message),
    })
    g.shut()
    second.deliver('a')
    await g.open()
    assert.deepEqual(failures, ['reader broke'])
  })

  it('keeps thousands of chunks in order through a gate that keeps shutting (hostile)', async () => {
    const stream = new DrivenStream()
    const { got, reader } = noting()
    const g = manualGate()
    readGated(stream.asStream, g.gate, reader)
    const sent: string[] = []
    for (let i = 0; i < 3000; i++) {
      if (i % 7 === 0) g.shut()
      stream.deliver(String(i))
      sent.push(String(i))
      if (i % 11 === 0) await g.open()
    }
    stream.end()
    await g.open()
    assert.deepEqual(got, [...sent, '<end>'])
  })
})
