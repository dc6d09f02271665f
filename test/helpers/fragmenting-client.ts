/**
 * A hostile tunnel client that answers its streams one byte per DATA frame, as fast as the
 * credit it is given allows: a raw WebSocket speaking the tunnel protocol by hand (the real
 * `TunnelMux` would gather the bytes into large frames).
 */
import type { Socket } from 'node:net'
import {
  decodeFrame,
  encodeFrame,
  INITIAL_CONNECTION_WINDOW,
  INITIAL_STREAM_WINDOW,
  MAX_CHUNK_BYTES,
  PROTOCOL_VERSION,
  type Frame,
} from '@burrow/protocol'
import { WebSocket } from 'ws'

/** A tunnel client sending one byte per frame on the streams it answered. */
export class FragmentingClient {
  readonly ws: WebSocket
  /** Bytes sent so far, on every stream. */
  bytesSent = 0
  #connCredit = INITIAL_CONNECTION_WINDOW
  readonly #streamCredit = new Map<number, number>()
  /** The stream answered last. */
  #last = 0
  /** Called with the stream (0: the connection) credit came for. */
  readonly #waiters = new Set<(streamId: number) => void>()
  /** Streams opened and not yet taken by `nextOpen`, and those waiting for one. */
  readonly #opened: number[] = []
  readonly #takers: ((id: number) => void)[] = []
  /** PINGs sent and not answered, by payload. */
  readonly #pongs = new Map<number, () => void>()
  #pings = 0

  constructor(broker: string, key: string) {
    this.ws = new WebSocket(broker, {
      perMessageDeflate: false,
      headers: { authorization: `Bearer ${key}` },
    })
    this.ws.on('message', (data: Buffer) => {
      const f: Frame = decodeFrame(data)
      if (f.type === 'open') {
        const take = this.#takers.shift()
        if (take) take(f.streamId)
        else this.#opened.push(f.streamId)
      }
      if (f.type === 'pong') this.#pongs.get(Number(f.payload))?.()
      if (f.type === 'window') {
        if (f.streamId === 0) this.#connCredit += f.credit
        else {
          const credit = this.#streamCredit.get(f.streamId)
          if (credit !== undefined) this.#streamCredit.set(f.streamId, credit + f.credit)
        }
        for (const wake of [...this.#waiters]) wake(f.streamId)
      }
    })
  }

  /** Wait for the connection, and say hello. */
  async hello(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.ws.once('open', () => resolve())
      this.ws.once('error', reject)
    })
    const welcomed = new Promise<void>((resolve) =>
      this.ws.on('message', (d: Buffer) => decodeFrame(d).type === 'welcome' && resolve()),
    )
    this.ws.send(
      encodeFrame({ type: 'hello', hello: { version: PROTOCOL_VERSION, agent: 'hostile/1' } }),
    )
    await welcomed
  }

  /** The next stream the broker opens (in order). */
  nextOpen(): Promise<number> {
    const id = this.#opened.shift()
    if (id !== undefined) return Promise.resolve(id)
    return new Promise((resolve) => this.#takers.push(resolve))
  }

  /** Answer `streamId` with a head (no body yet). */
  respond(streamId: number, status: number, type: string): void {
    this.#last = streamId
    this.#streamCredit.set(streamId, INITIAL_STREAM_WINDOW)
    this.ws.send(
      encodeFrame({
        type: 'response',
        streamId,
        head: { status, headers: [['content-type', type]] },
        fin: false,
      }),
    )
  }

  /**
   * Send `n` bytes on `streamId` (the stream answered last by default) one per frame, as its
   * credit allows; stops once the broker read every frame sent and gave no more credit. Resolves
   * with the bytes sent.
   */
  async dribble(n: number, streamId = this.#last): Promise<number> {
    // A masked WebSocket frame (mask key 0) carrying a DATA frame of one byte.
    const one = Buffer.from([0x82, 0x87, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0x20])
    one.writeUInt32BE(streamId, 8)
    const socket = (this.ws as unknown as { _socket: Socket })._socket
    const put = async (room: number) => {
      const batch = Buffer.alloc(room * one.length)
      for (let i = 0; i < room; i++) one.copy(batch, i * one.length)
      if (!socket.write(batch)) await new Promise((r) => socket.once('drain', r))
    }
    return this.#send(n, streamId, 65536, put, async () => {
      // The broker answers a PING after every frame sent before it: credit those frames
      // earned came first.
      const credit = this.#credit(streamId)
      await this.ping()
      return this.#credit(streamId) > credit
    })
  }

  /**
   * Send `n` bytes on `streamId` in DATA frames as large as they go, like an honest client,
   * leaving `keep` bytes of its credit unused; with `keep`, stops once the broker read every frame
   * sent and gave no more credit (asked twice, half a second apart). Resolves with the bytes sent.
   */
  async pour(n: number, streamId = this.#last, keep = 0): Promise<number> {
    const put = async (room: number) => {
      const chunk = Buffer.alloc(room, 0x20)
      await new Promise<void>((resolve, reject) =>
        this.ws.send(encodeFrame({ type: 'data', streamId, chunk, fin: false }), (err) =>
          err ? reject(err) : resolve(),
        ),
      )
    }
    const more = async () => {
      if (keep === 0) return this.#creditCame(streamId)
      const credit = this.#credit(streamId)
      await this.ping()
      if (this.#credit(streamId) > credit) return true
      await new Promise((r) => setTimeout(r, 500))
      await this.ping()
      return this.#credit(streamId) > credit
    }
    return this.#send(n, streamId, MAX_CHUNK_BYTES, put, more, keep)
  }

  /** End the answer on `streamId`. */
  end(streamId = this.#last): void {
    this.ws.send(encodeFrame({ type: 'data', streamId, chunk: new Uint8Array(0), fin: true }))
  }

  /** Resolves once the broker answered a PING (so read every frame sent before it). */
  ping(): Promise<void> {
    const payload = (this.#pings += 1)
    return new Promise((resolve) => {
      this.#pongs.set(payload, () => {
        this.#pongs.delete(payload)
        resolve()
      })
      this.ws.send(encodeFrame({ type: 'ping', payload }))
    })
  }

  /** Credit left to send on `streamId`: its own and the connection's, whichever is less. */
  #credit(streamId: number): number {
    return Math.min(this.#streamCredit.get(streamId) ?? 0, this.#connCredit)
  }

  /**
   * Send `n` bytes within the credit given (less `keep`), at most `step` at a time, through
   * `put`; when the credit is spent, `more` says whether to go on.
   */
  async #send(
    n: number,
    streamId: number,
    step: number,
    put: (bytes: number) => Promise<void>,
    more: () => Promise<boolean>,
    keep = 0,
  ): Promise<number> {
    let sent = 0
    while (sent < n && this.ws.readyState === WebSocket.OPEN) {
      const room = Math.min(this.#credit(streamId) - keep, n - sent, step)
      if (room <= 0) {
        if (!(await more())) break
        continue
      }
      this.#streamCredit.set(streamId, this.#streamCredit.get(streamId)! - room)
      this.#connCredit -= room
      sent += room
      this.bytesSent += room
      await put(room)
    }
    return sent
  }

  /** Resolves once credit came for `streamId` (or the connection). */
  #creditCame(streamId: number): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const wake = (id: number) => {
        if (id !== 0 && id !== streamId) return
        this.#waiters.delete(wake)
        resolve(true)
      }
      this.#waiters.add(wake)
    })
  }
}
