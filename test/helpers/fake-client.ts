// A scripted stand-in for `burrow up`: a real WebSocket to burrowd's broker speaking the tunnel
// protocol through the real TunnelMux, where each test decides how every public request is
// answered (respond, write, end, reset) and inspects what the broker sent (heads, bodies, resets,
// GOAWAYs). It never answers on its own, so a test sees exactly what the broker and edge do.
import {
  GOAWAY_CODE,
  PROTOCOL_VERSION,
  TunnelMux,
  type Frame,
  type GoawayCode,
  type HeaderPairs,
  type Hello,
  type MuxStream,
  type RequestHead,
  type ResetCode,
  type Welcome,
} from '@burrow/protocol'
import { WebSocket } from 'ws'

/** A GOAWAY frame as received. */
export type GoawayFrame = Extract<Frame, { type: 'goaway' }>

/** How the WebSocket closed, as this side saw it. */
export interface CloseInfo {
  readonly code: number
  readonly reason: string
}

/** A reset received on a stream (from the broker, or because the connection closed). */
export interface ResetInfo {
  readonly code: ResetCode
  readonly reason: string
}

/** One public request as it reached the fake client. */
export interface FakeRequest {
  readonly head: RequestHead
  /** The stream to answer on: `respond`, `write`, `end`, `reset`. */
  readonly stream: MuxStream
  /** Body bytes that rode inline in the OPEN frame. */
  readonly inline: Buffer | undefined
  /** Whether the OPEN frame carried FIN (the whole request in one frame). */
  readonly openFin: boolean
  /** Body bytes that arrived as separate DATA frames, in order. */
  readonly dataChunks: Buffer[]
  /** The whole body (inline and DATA) once the broker ends its direction. */
  readonly body: Promise<Buffer>
  /** Resolves when the stream is reset. */
  readonly reset: Promise<ResetInfo>
  /** Values of request header `name` (lower-case), in order. */
  headerValues(name: string): string[]
  /** Send a complete response in one frame: head, inline body and FIN. */
  reply(status: number, headers: HeaderPairs, body?: string | Buffer): void
  /** Send a complete JSON response. */
  replyJson(status: number, value: unknown): void
}

/** Rejects after `ms` with a message naming `what`; the timer never outlives the race. */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

/** A promise with its resolve function outside. */
function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void
  const promise = new Promise<T>((r) => (resolve = r))
  return { promise, resolve }
}

/**
 * Wait until something calls the waiter added to `list`; on timeout, or once `closed` settles
 * (nothing more can come, and a pending timer would keep the test's process alive), the waiter is
 * removed and the wait rejects.
 */
function waitInList<T>(
  list: ((value: T) => void)[],
  ms: number,
  what: string,
  closed: Promise<unknown>,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let done = false
    const give = (error: Error) => {
      if (done) return
      done = true
      clearTimeout(timer)
      const at = list.indexOf(waiter)
      if (at !== -1) list.splice(at, 1)
      reject(error)
    }
    const waiter = (value: T) => {
      if (done) return
      done = true
      clearTimeout(timer)
      resolve(value)
    }
    const timer = setTimeout(
      () => give(new Error(`timed out after ${ms} ms waiting for ${what}`)),
      ms,
    )
    list.push(waiter)
    void closed.then(() => give(new Error(`the fake client closed while waiting for ${what}`)))
  })
}

/** One fake tunnel connection. Create with `openFake` or `connectFake`. */
export class FakeClient {
  readonly ws: WebSocket
  readonly mux: TunnelMux
  /** Resolves with the WELCOME; rejects when the socket closes or fails first. */
  readonly ready: Promise<Welcome>
  /** Resolves when the WebSocket closed, with the close code and reason. */
  readonly closed: Promise<CloseInfo>
  /** Every request received so far, in order. */
  readonly requests: FakeRequest[] = []
  /** Every GOAWAY received so far. */
  readonly goaways: GoawayFrame[] = []
  private readonly unclaimed: FakeRequest[] = []
  private readonly requestWaiters: ((req: FakeRequest) => void)[] = []
  private readonly goawayWaiters: ((frame: GoawayFrame) => void)[] = []
  private readonly pongs = new Map<number, () => void>()
  private pingCount = 0
  private welcomeValue: Welcome | undefined

  constructor(broker: string, key: string | null, hello: Partial<Hello> = {}) {
    this.ws = new WebSocket(broker, {
      perMessageDeflate: false,
      headers: key === null ? {} : { authorization: `Bearer ${key}` },
    })
    let welcomed: (welcome: Welcome) => void = () => {}
    let failed: (err: Error) => void = () => {}
    this.ready = new Promise<Welcome>((resolve, reject) => {
      welcomed = resolve
      failed = reject
    })
    // A test that expects a refusal may never await `ready`; do not report that as unhandled.
    this.ready.catch(() => {})
    const closed = deferred<CloseInfo>()
    this.closed = closed.promise

    this.mux = new TunnelMux({
      role: 'client',
      transport: {
        send: (bytes, done) => {
          if (this.ws.readyState === WebSocket.OPEN) this.ws.send(bytes, { binary: true }, done)
          else done?.(new Error('socket is not open'))
        },
      },
      onOpen: (stream, head, inline, fin) => this.onOpen(stream, head, inline, fin),
      onControl: (frame) => {
        if (frame.type === 'welcome') {
          this.welcomeValue = frame.welcome
          welcomed(frame.welcome)
        } else if (frame.type === 'pong') {
          this.pongs.get(Number(frame.payload))?.()
        } else if (frame.type === 'goaway') {
          this.goaways.push(frame)
          for (const waiter of this.goawayWaiters.splice(0)) waiter(frame)
        }
      },
      onProtocolError: (err) => this.ws.close(1002, err.message.slice(0, 100)),
    })

    this.ws.on('open', () => {
      this.mux.control({
        type: 'hello',
        hello: { version: PROTOCOL_VERSION, agent: 'fake/1', ...hello },
      })
    })
    this.ws.on('message', (data: Buffer, isBinary) => {
      if (isBinary) this.mux.receive(data)
    })
    this.ws.on('error', (err) => failed(err))
    this.ws.on('close', (code, reason) => {
      this.mux.close('fake client socket closed')
      failed(new Error(`socket closed before WELCOME: ${code} ${reason.toString()}`))
      closed.resolve({ code, reason: reason.toString() })
    })
  }

  /** The WELCOME; throws before it arrived. */
  get welcome(): Welcome {
    if (!this.welcomeValue) throw new Error('no WELCOME yet')
    return this.welcomeValue
  }

  /** The next request not yet taken by a caller, if one has arrived (leaves no waiter behind). */
  takeRequest(): FakeRequest | undefined {
    return this.unclaimed.shift()
  }

  /** The next request not yet taken by a caller (in arrival order). */
  nextRequest(ms = 10_000): Promise<FakeRequest> {
    const queued = this.unclaimed.shift()
    if (queued) return Promise.resolve(queued)
    return waitInList(this.requestWaiters, ms, 'a request at the fake client', this.closed)
  }

  /** The next GOAWAY (or one already received). */
  nextGoaway(ms = 5_000): Promise<GoawayFrame> {
    const seen = this.goaways[0]
    if (seen) return Promise.resolve(seen)
    return waitInList(this.goawayWaiters, ms, 'a GOAWAY at the fake client', this.closed)
  }

  /** Ask the broker to route nothing new here, as `burrow up` does on Ctrl-C. */
  sendGoaway(code: GoawayCode = GOAWAY_CODE.drain): void {
    this.mux.control({ type: 'goaway', lastStreamId: 0, code, reconnectAfterMs: 0 })
  }

  /**
   * PING the broker and wait for its PONG. Frames are handled in order, so once this resolves the
   * broker has processed everything this client sent before (a GOAWAY, say).
   */
  async roundTrip(ms = 5_000): Promise<void> {
    const payload = ++this.pingCount
    const pong = new Promise<void>((resolve) => this.pongs.set(payload, resolve))
    this.mux.control({ type: 'ping', payload })
    try {
      await within(pong, ms, 'a PONG from the broker')
    } finally {
      this.pongs.delete(payload)
    }
  }

  /** Send raw bytes or text, bypassing the frame codec. */
  sendRaw(data: Buffer | string): void {
    this.ws.send(data, { binary: typeof data !== 'string' })
  }

  /** Close the socket cleanly and wait until it is closed. */
  async close(): Promise<CloseInfo> {
    if (this.ws.readyState === WebSocket.CONNECTING || this.ws.readyState === WebSocket.OPEN) {
      this.ws.close(1000, 'fake client done')
    }
    return within(this.closed, 5_000, 'the fake client socket to close')
  }

  /** Drop the TCP connection without a close handshake. */
  async terminate(): Promise<CloseInfo> {
    this.ws.terminate()
    return within(this.closed, 5_000, 'the fake client socket to close')
  }

  private onOpen(
    stream: MuxStream,
    head: RequestHead,
    inline: Uint8Array | undefined,
    fin: boolean,
  ): void {
    const inlineBuf = inline ? Buffer.from(inline) : undefined
    const dataChunks: Buffer[] = []
    const body = deferred<Buffer>()
    const reset = deferred<ResetInfo>()
    const finish = () =>
      body.resolve(Buffer.concat([...(inlineBuf ? [inlineBuf] : []), ...dataChunks]))
    if (fin) finish()
    else stream.read((chunk) => void dataChunks.push(Buffer.from(chunk)), finish)
    stream.onReset = (code, reason) => reset.resolve({ code, reason })
    const req: FakeRequest = {
      head,
      stream,
      inline: inlineBuf,
      openFin: fin,
      dataChunks,
      body: body.promise,
      reset: reset.promise,
      headerValues: (name) => head.headers.filter(([n]) => n === name).map(([, v]) => v),
      reply: (status, headers, payload) => {
        const bytes = payload === undefined ? undefined : Buffer.from(payload)
        stream.respond({ status, headers }, bytes && bytes.length > 0 ? bytes : undefined, true)
      },
      replyJson: (status, value) =>
        req.reply(status, [['content-type', 'application/json']], JSON.stringify(value)),
    }
    this.requests.push(req)
    const waiter = this.requestWaiters.shift()
    if (waiter) waiter(req)
    else this.unclaimed.push(req)
  }
}

/** Open a fake client without waiting for the handshake (`ready`, `closed` tell the outcome). */
export function openFake(broker: string, key: string | null, hello: Partial<Hello> = {}) {
  return new FakeClient(broker, key, hello)
}

/** Open a fake client and wait for its WELCOME. */
export async function connectFake(
  broker: string,
  key: string,
  hello: Partial<Hello> = {},
): Promise<FakeClient> {
  const client = new FakeClient(broker, key, hello)
  await within(client.ready, 10_000, 'WELCOME')
  return client
}
