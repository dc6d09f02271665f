// The multiplexer over an in-memory pair: windows, round-robin, backpressure, cancellation, errors.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  decodeFrame,
  encodeFrame,
  FRAME_TYPE,
  INITIAL_STREAM_WINDOW,
  MAX_QUEUED_CONTROL_FRAMES,
  MAX_STREAM_WINDOW,
  ProtocolError,
  RESET_CODE,
  TunnelMux,
  type MuxStream,
  type RequestHead,
} from '../../src/index.js'

interface Pair {
  broker: TunnelMux
  client: TunnelMux
  opened: { stream: MuxStream; head: RequestHead; body: Uint8Array | undefined }[]
  errors: ProtocolError[]
  /** Stream-level violations (the stream was reset, the connection went on). */
  streamErrors: ProtocolError[]
  /** Deliver queued frames in both directions until quiet. */
  flush(): void
  /** Frame payload types that went from broker to client. */
  log: string[]
}

function pair(highWaterBytes?: number, pending?: (() => void)[], clock?: () => number): Pair {
  const toClient: Uint8Array[] = []
  const toBroker: Uint8Array[] = []
  const opened: Pair['opened'] = []
  const errors: ProtocolError[] = []
  const streamErrors: ProtocolError[] = []
  const log: string[] = []
  const ack = (done?: () => void) => {
    if (!done) return
    if (pending) pending.push(done)
    else queueMicrotask(done)
  }
  const extra = { ...(highWaterBytes ? { highWaterBytes } : {}), ...(clock ? { clock } : {}) }
  const broker = new TunnelMux({
    role: 'broker',
    transport: { send: (b, done) => (toClient.push(b), log.push(`b>${b[0]}`), ack(done)) },
    onProtocolError: (e) => errors.push(e),
    onStreamError: (e) => streamErrors.push(e),
    ...extra,
  })
  const client = new TunnelMux({
    role: 'client',
    transport: { send: (b, done) => (toBroker.push(b), ack(done)) },
    onOpen: (stream, head, body) => opened.push({ stream, head, body }),
    onProtocolError: (e) => errors.push(e),
    onStreamError: (e) => streamErrors.push(e),
    ...extra,
  })
  const flush = () => {
    while (toClient.length || toBroker.length) {
      while (toClient.length) client.receive(toClient.shift()!)
      while (toBroker.length) broker.receive(toBroker.shift()!)
    }
  }
  return { broker, client, opened, errors, streamErrors, flush, log }
}

const head: RequestHead = {
  method: 'POST',
  path: '/mcp',
  headers: [['content-type', 'application/json']],
}
const tick = () => new Promise((r) => setImmediate(r))

describe('TunnelMux', () => {
  it('carries an inline request and a streamed response', async () => {
    const p = pair()
    const s = p.broker.open(head, Buffer.from('{"x":1}'), true)
    p.flush()
    assert.equal(p.opened.length, 1)
    assert.equal(Buffer.from(p.opened[0]!.body!).toString(), '{"x":1}')
    const got: string[] = []
    let status = 0
    let ended = false
    s.onResponse = (h) => (status = h.status)
    s.read(
      (c) => void got.push(Buffer.from(c).toString()),
      () => (ended = true),
    )
    const remote = p.opened[0]!.stream
    remote.respond({ status: 200, headers: [] })
    remote.write(Buffer.from('a'))
    remote.write(Buffer.from('b'))
    remote.end()
    p.flush()
    await tick()
    p.flush()
    assert.equal(status, 200)
    assert.deepEqual(got.join(''), 'ab')
    assert.ok(ended)
    assert.equal(p.broker.streamCount, 0)
    assert.equal(p.client.streamCount, 0)
  })

  it('never sends more than the window to a reader that stops reading', async () => {
    const p = pair()
    const s = p.broker.open({ method: 'GET', path: '/mcp', headers: [] }, undefined, true)
    p.flush()
    let received = 0
    s.read((c) => {
      received += c.length
      return false // a slow agent: never drains
    })
    const remote = p.opened[0]!.stream
    remote.respond({ status: 200, headers: [] })
    const big = Buffer.alloc(4 * 1024 * 1024)
    remote.write(big)
    for (let i = 0; i < 20; i++) {
      p.flush()
      await tick()
    }
    assert.equal(received, INITIAL_STREAM_WINDOW)
    s.resumeReading()
    for (let i = 0; i < 20; i++) {
      p.flush()
      await tick()
    }
    assert.ok(received > INITIAL_STREAM_WINDOW, 'resuming grants more credit')
  })

  it('interleaves DATA of a big stream with a small one (round robin)', async () => {
    const acks: (() => void)[] = []
    const p = pair(64 * 1024, acks)
    const big = p.broker.open({ method: 'GET', path: '/mcp', headers: [] }, undefined, true)
    const small = p.broker.open({ method: 'GET', path: '/mcp', headers: [] }, undefined, true)
    p.flush()
    const order: string[] = []
    big.read(() => void order.push('big'))
    small.read(() => void order.push('small'))
    const [rb, rs] = [p.opened[0]!.stream, p.opened[1]!.stream]
    rb.respond({ status: 200, headers: [] })
    rs.respond({ status: 200, headers: [] })
    rb.write(Buffer.alloc(200 * 1024))
    rs.write(Buffer.alloc(10))
    // Let the socket "write" one frame at a time until both streams are done.
    for (let i = 0; i < 20 && order.filter((o) => o === 'big').length < 4; i++) {
      await tick()
      p.flush()
      for (const ack of acks.splice(0)) ack()
    }
    assert.ok(order.includes('small'), `the small reply never arrived: ${order.join(',')}`)
    assert.ok(
      order.indexOf('small') <= 1,
      `small reply waited behind the big one: ${order.join(',')}`,
    )
  })

  it('sends the pieces a stream was given in one turn as one DATA frame', async () => {
    const p = pair()
    const s = p.broker.open({ method: 'GET', path: '/mcp', headers: [] }, undefined, true)
    p.flush()
    const chunks: string[] = []
    let ended = false
    s.read(
      (c) => void chunks.push(Buffer.from(c).toString()),
      () => (ended = true),
    )
    const remote = p.opened[0]!.stream
    remote.respond({ status: 200, headers: [] })
    for (const piece of ['event: a\n', 'data: 1\n\n', 'event: b\n'])
      remote.write(Buffer.from(piece))
    remote.end()
    p.flush()
    await tick()
    p.flush()
    assert.deepEqual(chunks, ['event: a\ndata: 1\n\nevent: b\n'])
    assert.ok(ended, 'FIN rode with the last DATA')
    // Pieces given in a later turn go in a later frame, in order.
    const t = p.broker.open({ method: 'GET', path: '/mcp', headers: [] }, undefined, true)
    p.flush()
    const later: string[] = []
    t.read((c) => void later.push(Buffer.from(c).toString()))
    const remote2 = p.opened[1]!.stream
    remote2.respond({ status: 200, headers: [] })
    remote2.write(Buffer.from('first'))
    await tick()
    p.flush()
    remote2.write(Buffer.from('second'))
    await tick()
    p.flush()
    assert.deepEqual(later, ['first', 'second'])
  })

  it('never puts more than 64 KiB in one DATA frame when coalescing', async () => {
    const p = pair()
    const s = p.broker.open({ method: 'GET', path: '/mcp', headers: [] }, undefined, true)
    p.flush()
    const sizes: number[] = []
    s.read((c) => void sizes.push(c.length))
    const remote = p.opened[0]!.stream
    remote.respond({ status: 200, headers: [] })
    for (let i = 0; i < 5; i++) remote.write(Buffer.alloc(30 * 1024, i))
    for (let i = 0; i < 5; i++) {
      await tick()
      p.flush()
    }
    assert.deepEqual(sizes, [64 * 1024, 64 * 1024, 22 * 1024])
  })

  it('cancellation reaches the other side as a reset', () => {
    const p = pair()
    const s = p.broker.open(head, Buffer.from('{}'), true)
    p.flush()
    let reset = ''
    p.opened[0]!.stream.onReset = (_code, reason) => (reset = reason)
    s.reset(RESET_CODE.cancel, 'agent hung up')
    p.flush()
    assert.equal(reset, 'agent hung up')
    assert.equal(p.client.streamCount, 0)
  })

  it('a stream that exceeds its window is reset; the connection and its other streams go on', () => {
    const p = pair()
    const s = p.broker.open(head, undefined, true)
    const other = p.broker.open(head, undefined, true)
    p.flush()
    const streamReset: string[] = []
    s.onReset = (_c, r) => streamReset.push(r)
    const response = {
      type: 'response',
      streamId: s.id,
      head: { status: 200, headers: [] },
      fin: false,
    } as const
    p.broker.receive(encodeFrame(response))
    for (let i = 0; i < 5; i++) {
      p.broker.receive(
        encodeFrame({ type: 'data', streamId: s.id, chunk: Buffer.alloc(64 * 1024), fin: false }),
      )
    }
    assert.equal(p.errors.length, 0)
    assert.equal(p.streamErrors.length, 1)
    assert.equal(p.streamErrors[0]!.code, 'flow_control')
    assert.equal(streamReset.length, 1)
    assert.match(streamReset[0]!, /beyond its window/)
    // The peer hears of it as a reset of that stream only.
    let peerReset = ''
    p.opened[0]!.stream.onReset = (_c, r) => (peerReset = r)
    p.flush()
    assert.match(peerReset, /protocol error/)
    // The other stream still works.
    let status = 0
    other.onResponse = (h) => (status = h.status)
    p.opened[1]!.stream.respond({ status: 204, headers: [] }, undefined, true)
    p.flush()
    assert.equal(status, 204)
  })

  it('bytes beyond the connection window end the connection', () => {
    const p = pair()
    const streams = Array.from({ length: 70 }, () => p.broker.open(head, undefined, true))
    p.flush()
    // Each stream stays within its own window; together they pass the connection's 16 MiB.
    outer: for (const s of streams) {
      p.broker.receive(
        encodeFrame({
          type: 'response',
          streamId: s.id,
          head: { status: 200, headers: [] },
          fin: false,
        }),
      )
      for (let i = 0; i < 4; i++) {
        p.broker.receive(
          encodeFrame({ type: 'data', streamId: s.id, chunk: Buffer.alloc(64 * 1024), fin: false }),
        )
        if (p.errors.length > 0) break outer
      }
    }
    assert.equal(p.streamErrors.length, 0)
    assert.equal(p.errors.length, 1)
    assert.equal(p.errors[0]!.code, 'flow_control')
    assert.match(p.errors[0]!.message, /connection's window/)
  })

  it('an OPEN whose head the codec refuses resets that stream only, the next one too', () => {
    const longPath = {
      type: 'open',
      streamId: 1,
      head: { ...head, path: '/' + 'a'.repeat(9000) },
      fin: true,
    }
    // The encoder keeps to the limits, so the bad frame is built by hand.
    const meta = Buffer.from(JSON.stringify({ m: 'POST', p: longPath.head.path, h: [] }))
    const frame = Buffer.alloc(8 + meta.length)
    frame[0] = 3
    frame[1] = 1
    frame.writeUInt32BE(1, 2)
    frame.writeUInt16BE(meta.length, 6)
    meta.copy(frame, 8)
    const resets: string[] = []
    const sent: Uint8Array[] = []
    const client = new TunnelMux({
      role: 'client',
      transport: { send: (b, done) => (sent.push(b), done?.()) },
      onOpen: () => assert.fail('a refused OPEN must not reach the handler'),
      onProtocolError: (e) => assert.fail(`the connection must survive: ${e.message}`),
      onStreamError: (e) => resets.push(e.message),
    })
    client.receive(frame)
    assert.equal(resets.length, 1)
    assert.match(resets[0]!, /path/)
    const rst = decodeFrame(sent[0]!)
    assert.equal(rst.type, 'rst')
    assert.equal(rst.type === 'rst' && rst.code, RESET_CODE.protocol)
    assert.equal(client.streamCount, 0)
    // Three hundred headers: refused the same way, on the next stream id.
    const many = Array.from({ length: 300 }, (_, i) => [`x-h${i}`, 'v'])
    const meta2 = Buffer.from(JSON.stringify({ m: 'POST', p: '/mcp', h: many }))
    const frame2 = Buffer.alloc(8 + meta2.length)
    frame2[0] = 3
    frame2[1] = 1
    frame2.writeUInt32BE(3, 2)
    frame2.writeUInt16BE(meta2.length, 6)
    meta2.copy(frame2, 8)
    client.receive(frame2)
    assert.equal(resets.length, 2)
    // A replayed id is still out of order: that one is the connection's problem.
    let fatal = ''
    const strict = new TunnelMux({
      role: 'client',
      transport: { send: (_b, done) => done?.() },
      onStreamError: () => {},
      onProtocolError: (e) => (fatal = e.message),
    })
    strict.receive(frame2)
    strict.receive(frame)
    assert.match(fatal, /out of order/)
  })

  it('opening a stream whose head is beyond the limits throws and opens nothing', () => {
    const p = pair()
    const big = { ...head, headers: [['x-big', 'x'.repeat(17 * 1024)]] as const }
    assert.throws(() => p.broker.open(big, undefined, true), RangeError)
    assert.equal(p.broker.streamCount, 0)
    const s = p.broker.open(head, undefined, true)
    p.flush()
    assert.equal(p.opened.length, 1)
    assert.equal(p.opened[0]!.stream.id, s.id)
  })

  it('a response head beyond the limits resets the stream instead of throwing', () => {
    const p = pair()
    const s = p.broker.open(head, undefined, true)
    p.flush()
    let reset = ''
    s.onReset = (_c, r) => (reset = r)
    const local = p.opened[0]!.stream
    let localReset = ''
    local.onReset = (_c, r) => (localReset = r)
    local.respond({ status: 200, headers: [['x-big', 'x'.repeat(17 * 1024)]] }, undefined, true)
    p.flush()
    assert.match(reset, /cannot cross the tunnel/)
    assert.match(localReset, /exceeds/)
    assert.equal(p.broker.streamCount, 0)
    assert.equal(p.client.streamCount, 0)
    assert.equal(p.errors.length, 0)
  })

  it('a peer that sends PINGs and never reads the PONGs is cut off', () => {
    let sent = 0
    let fatal: ProtocolError | null = null
    const broker = new TunnelMux({
      role: 'broker',
      // A transport whose writes never complete: the peer reads nothing.
      transport: { send: () => void sent++ },
      onProtocolError: (e) => (fatal = e),
    })
    const ping = encodeFrame({ type: 'ping', payload: 1 })
    for (let i = 0; i < MAX_QUEUED_CONTROL_FRAMES + 10 && fatal === null; i++) broker.receive(ping)
    assert.equal(sent, MAX_QUEUED_CONTROL_FRAMES)
    assert.equal((fatal as ProtocolError | null)?.code, 'flood')
    // A peer that reads is never cut off, however many PINGs it sends.
    let ok = true
    const reading = new TunnelMux({
      role: 'broker',
      transport: { send: (_b, done) => done?.() },
      onProtocolError: () => (ok = false),
    })
    for (let i = 0; i < MAX_QUEUED_CONTROL_FRAMES * 2; i++) reading.receive(ping)
    assert.ok(ok)
  })

  it('answers every PING with a PONG carrying its value exactly, the largest u64 included', () => {
    // Found by a hostile review: the value was read as a number, so 2^53 + 1 came back as 2^53,
    // and 2^64 − 1 rounded to 2^64, which the PONG could not encode (the connection dropped).
    const sent: Buffer[] = []
    let fault: unknown = null
    const broker = new TunnelMux({
      role: 'broker',
      transport: { send: (bytes, done) => (sent.push(Buffer.from(bytes)), done?.()) },
      onProtocolError: (e) => (fault = e),
    })
    const values = [0, 7, 2n ** 53n + 1n, 2n ** 64n - 1n]
    for (const value of values) {
      const ping = Buffer.from(encodeFrame({ type: 'ping', payload: value }))
      assert.equal(ping.readBigUInt64BE(ping.length - 8), BigInt(value))
      broker.receive(ping)
    }
    assert.equal(fault, null)
    const echoed = sent.map((bytes) => {
      const frame = decodeFrame(bytes)
      assert.equal(frame.type, 'pong')
      return BigInt(frame.type === 'pong' ? frame.payload : -1)
    })
    assert.deepEqual(echoed, values.map(BigInt))
  })

  it('a RESPONSE on a stream the peer opened resets that stream only', () => {
    const q = pair()
    q.broker.open(head, undefined, true)
    q.flush()
    q.client.receive(
      encodeFrame({
        type: 'response',
        streamId: 1,
        head: { status: 200, headers: [] },
        fin: false,
      }),
    )
    assert.equal(q.errors.length, 0)
    assert.equal(q.streamErrors[0]?.code, 'bad_stream')
  })

  it('a second RESPONSE, or DATA before the RESPONSE, resets that stream only', () => {
    const response = encodeFrame({
      type: 'response',
      streamId: 1,
      head: { status: 200, headers: [] },
      fin: false,
    })
    const data = encodeFrame({
      type: 'data',
      streamId: 1,
      chunk: Buffer.from('<html>'),
      fin: false,
    })
    for (const frames of [[response, response], [data]]) {
      const q = pair()
      const stream = q.broker.open(head, undefined, true)
      let responses = 0
      let reset: number | null = null
      stream.onResponse = () => responses++
      stream.onReset = (code) => (reset = code)
      q.flush()
      for (const f of frames) q.broker.receive(f)
      assert.equal(q.errors.length, 0)
      assert.equal(q.streamErrors[0]?.code, 'bad_stream')
      assert.equal(reset, RESET_CODE.protocol)
      assert.equal(responses, frames.length === 2 ? 1 : 0)
    }
  })

  it('frames for streams never opened, and client-opened streams, are protocol errors', () => {
    const p = pair()
    p.broker.receive(
      encodeFrame({ type: 'data', streamId: 41, chunk: Buffer.from('x'), fin: false }),
    )
    assert.equal(p.errors[0]?.code, 'bad_stream')
    const q = pair()
    q.broker.receive(encodeFrame({ type: 'open', streamId: 2, head, fin: true }))
    assert.equal(q.errors[0]?.code, 'bad_stream')
  })

  it('late frames for a closed stream are ignored', () => {
    const p = pair()
    const s = p.broker.open(head, undefined, true)
    p.flush()
    s.reset(RESET_CODE.cancel, 'bye')
    p.broker.receive(
      encodeFrame({ type: 'data', streamId: 1, chunk: Buffer.from('late'), fin: true }),
    )
    assert.equal(p.errors.length, 0)
  })

  it('closing the connection resets every open stream', () => {
    const p = pair()
    const s = p.broker.open(head, undefined, true)
    let reset = false
    s.onReset = () => (reset = true)
    p.broker.close()
    assert.ok(reset)
    assert.throws(() => p.broker.open(head))
  })

  it('grows the window of a stream whose reader keeps up, up to the maximum', async () => {
    // A clock that stands still: every window is consumed "at once".
    const p = pair(undefined, undefined, () => 0)
    const credits: number[] = []
    const s = p.broker.open({ method: 'GET', path: '/mcp', headers: [] }, undefined, true)
    p.flush()
    let received = 0
    s.read((c) => void (received += c.length))
    const remote = p.opened[0]!.stream
    remote.respond({ status: 200, headers: [] })
    const total = 24 * 1024 * 1024
    const piece = Buffer.alloc(1024 * 1024)
    let written = 0
    const client = p.client as unknown as { onWindow: (id: number, credit: number) => void }
    const onWindow = client.onWindow.bind(p.client)
    client.onWindow = (id, credit) => {
      if (id === remote.id) credits.push(credit)
      onWindow(id, credit)
    }
    while (received < total) {
      while (written < total && remote.write(piece)) written += piece.length
      if (written < total && remote.queuedBytes < piece.length) {
        remote.write(piece)
        written += piece.length
      }
      await tick()
      p.flush()
    }
    assert.equal(received, total)
    assert.ok(Math.max(...credits) > INITIAL_STREAM_WINDOW / 2, 'the window grew')
    assert.ok(Math.max(...credits) <= MAX_STREAM_WINDOW, 'but not beyond the maximum')
    assert.ok(
      credits.length < total / (INITIAL_STREAM_WINDOW / 2) / 4,
      `${credits.length} WINDOW frames for ${total} bytes`,
    )
  })

  it("opens a later stream at once to the window an earlier stream's reader earned", async () => {
    const p = pair(undefined, undefined, () => 0)
    const credits = new Map<number, number[]>()
    const client = p.client as unknown as { onWindow: (id: number, credit: number) => void }
    const onWindow = client.onWindow.bind(p.client)
    client.onWindow = (id, credit) => {
      if (id !== 0) credits.set(id, [...(credits.get(id) ?? []), credit])
      onWindow(id, credit)
    }
    /** One answer of `total` bytes through a new stream; returns its stream's credits. */
    const answer = async (total: number): Promise<number[]> => {
      const s = p.broker.open({ method: 'GET', path: '/mcp', headers: [] }, undefined, true)
      p.flush()
      let received = 0
      s.read((c) => void (received += c.length))
      const remote = p.opened.at(-1)!.stream
      remote.respond({ status: 200, headers: [] })
      const piece = Buffer.alloc(Math.min(total, 1024 * 1024))
      let written = 0
      while (received < total) {
        while (written < total && remote.write(piece)) written += piece.length
        if (written < total && remote.queuedBytes < piece.length) {
          remote.write(piece)
          written += piece.length
        }
        await tick()
        p.flush()
      }
      remote.end()
      p.flush()
      return credits.get(remote.id) ?? []
    }
    const first = await answer(24 * 1024 * 1024)
    assert.equal(first[0], INITIAL_STREAM_WINDOW / 2, 'the first stream starts small')
    assert.equal(await answer(64 * 1024).then((c) => c.length), 0, 'a small answer: no WINDOW')
    const later = await answer(8 * 1024 * 1024)
    assert.ok(later[0]! > MAX_STREAM_WINDOW / 2, `first credit of a later stream: ${later[0]}`)
  })

  it('keeps the initial window for a slow reader', async () => {
    // A clock that moves 100 ms for every frame read: the reader takes far longer than
    // WINDOW_GROWTH_MS to consume a window.
    let now = 0
    const toClient: Uint8Array[] = []
    const toBroker: Uint8Array[] = []
    let opened: MuxStream | undefined
    const broker = new TunnelMux({
      role: 'broker',
      transport: { send: (b) => void toClient.push(b) },
      clock: () => now,
    })
    const client = new TunnelMux({
      role: 'client',
      transport: { send: (b, done) => (toBroker.push(b), done && queueMicrotask(done)) },
      onOpen: (stream) => (opened = stream),
    })
    const credits: number[] = []
    const flush = () => {
      while (toClient.length || toBroker.length) {
        while (toClient.length) {
          const frame = toClient.shift()!
          const decoded = decodeFrame(frame)
          if (decoded.type === 'window' && decoded.streamId !== 0) credits.push(decoded.credit)
          client.receive(frame)
        }
        while (toBroker.length) broker.receive(toBroker.shift()!)
      }
    }
    const s = broker.open({ method: 'GET', path: '/mcp', headers: [] }, undefined, true)
    flush()
    let received = 0
    s.read((c) => {
      now += 100
      received += c.length
    })
    opened!.respond({ status: 200, headers: [] })
    const total = 8 * 1024 * 1024
    let written = 0
    while (received < total) {
      while (written < total && opened!.write(Buffer.alloc(64 * 1024))) written += 64 * 1024
      await tick()
      flush()
    }
    assert.ok(credits.length > 0)
    assert.ok(
      credits.every((c) => c <= INITIAL_STREAM_WINDOW),
      `credits beyond the initial window: ${credits.filter((c) => c > INITIAL_STREAM_WINDOW).join(', ')}`,
    )
  })

  it('reuses DATA buffers only after the transport is done with them', async () => {
    const inFlight: { bytes: Uint8Array; done: () => void; copy: Buffer }[] = []
    let opened: MuxStream | undefined
    const client = new TunnelMux({
      role: 'client',
      reuseBuffers: true,
      transport: {
        send: (bytes, done) => {
          if (bytes[0] !== FRAME_TYPE.data) return done?.()
          if (done) inFlight.push({ bytes, done, copy: Buffer.from(bytes) })
        },
      },
      onOpen: (stream) => (opened = stream),
    })
    const broker = new TunnelMux({
      role: 'broker',
      transport: { send: (b) => client.receive(b) },
    })
    broker.open({ method: 'GET', path: '/mcp', headers: [] }, undefined, true)
    opened!.respond({ status: 200, headers: [] })
    opened!.write(Buffer.alloc(64 * 1024, 1))
    await tick()
    opened!.write(Buffer.alloc(64 * 1024, 2))
    await tick()
    assert.equal(inFlight.length, 2)
    // Neither frame was overwritten while its write was pending.
    for (const f of inFlight) assert.ok(Buffer.from(f.bytes).equals(f.copy))
    assert.notEqual(inFlight[0]!.bytes.buffer, inFlight[1]!.bytes.buffer)
    const first = inFlight.shift()!
    first.done()
    opened!.write(Buffer.alloc(64 * 1024, 3))
    await tick()
    // The next frame went into the buffer the transport gave back.
    assert.equal(inFlight[1]!.bytes.buffer, first.bytes.buffer)
    assert.equal(decodeFrame(inFlight[1]!.bytes).type, 'data')
    assert.ok(Buffer.from(inFlight[0]!.bytes).equals(inFlight[0]!.copy))
  })
})
