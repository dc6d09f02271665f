/**
 * `GET /api/traffic/stream`: the live feed behind the traffic list, as Server-Sent Events. It
 * opens with a snapshot of every kept exchange, then sends the summaries of new and changed ones,
 * coalesced over a short interval so a chatty SSE upstream does not flood the browser. A browser
 * that stops reading is cut off rather than buffered for; the page reconnects and gets a fresh
 * snapshot. The bound on unsent bytes counts what is queued after the snapshot: the snapshot is
 * written once per connection and is as big as the recorder's summaries (within its byte
 * budget, which counts every kept string), so a snapshot bigger than the bound must still reach
 * the page, or a page would be cut off and reconnect, rebuilding it, every second.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { ExchangeSummary } from './exchange-recording.js'
import { SECURITY_HEADERS } from './inspector-http.js'
import type { TrafficRecorder } from './traffic-recorder.js'

/** Options of `serveTrafficStream`. */
export interface TrafficStreamOptions {
  /** Changes are sent at most this often; default 50 ms. */
  readonly flushMs?: number
  /** Interval of keep-alive comments; default 15 s. */
  readonly keepAliveMs?: number
  /** Unsent bytes, beyond the snapshot, after which a slow reader is disconnected; default 4 MiB. */
  readonly maxBufferedBytes?: number
}

/** Serve the feed on `res` until the browser goes away. */
export function serveTrafficStream(
  req: IncomingMessage,
  res: ServerResponse,
  recorder: TrafficRecorder,
  options: TrafficStreamOptions = {},
): void {
  const flushMs = options.flushMs ?? 50
  const maxBuffered = options.maxBufferedBytes ?? 4 * 1024 * 1024
  res.writeHead(200, {
    ...SECURITY_HEADERS,
    'content-type': 'text/event-stream; charset=utf-8',
    'x-accel-buffering': 'no',
  })
  // Bytes of the snapshot that may still be unsent: allowed on top of the bound until it has
  // left (then the bound alone applies again).
  let snapshotBytes = 0
  const send = (event: string, data: unknown): void => {
    if (res.destroyed) return
    const text = `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`
    const flowing = res.write(text)
    if (event === 'snapshot') {
      if (!flowing) {
        snapshotBytes = Buffer.byteLength(text)
        res.once('drain', () => (snapshotBytes = 0))
      }
    } else if (res.writableLength > snapshotBytes + maxBuffered) res.destroy()
  }
  res.write('retry: 1000\n\n')
  send('snapshot', { limit: recorder.limit, exchanges: recorder.list() })

  let pending = new Map<number, ExchangeSummary>()
  let timer: NodeJS.Timeout | undefined
  const flush = (): void => {
    timer = undefined
    if (pending.size === 0) return
    const batch = [...pending.values()]
    pending = new Map()
    send('exchanges', batch)
  }
  const unsubscribe = recorder.subscribe((event) => {
    if (event.type === 'cleared') {
      pending.clear()
      send('cleared', {})
      return
    }
    pending.set(event.exchange.id, event.exchange)
    timer ??= setTimeout(flush, flushMs)
  })
  const keepAlive = setInterval(() => {
    if (!res.destroyed) res.write(': keepalive\n\n')
  }, options.keepAliveMs ?? 15_000)
  keepAlive.unref()
  const stop = (): void => {
    unsubscribe()
    clearTimeout(timer)
    clearInterval(keepAlive)
  }
  req.once('close', stop)
  res.once('close', stop)
}
