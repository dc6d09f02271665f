/**
 * Serves a handler behind the inspector's tap on 127.0.0.1 (port 0) through the node:http
 * adapter, as `burrow up` serves tunnelled requests, for tests that drive it with a real client.
 */
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import {
  TrafficRecorder,
  type TrafficRecorderOptions,
} from '../../src/inspector/traffic-recorder.js'
import { tapHandler } from '../../src/inspector/traffic-tap.js'
import { serveOverHttp } from '../../src/relay/node-http-adapter.js'
import type { RequestHandler } from '../../src/relay/local-exchange.js'

/** A tapped handler on a real port. */
export interface ServedTap {
  /** `http://127.0.0.1:<port>/mcp`. */
  readonly url: URL
  readonly recorder: TrafficRecorder
  readonly server: Server
  close(): Promise<void>
}

/** Tap `inner` and serve it. Closing does not close `inner`. */
export async function serveTapped(
  inner: RequestHandler,
  options: TrafficRecorderOptions = {},
): Promise<ServedTap> {
  const recorder = new TrafficRecorder(options)
  const server = serveOverHttp(tapHandler(inner, recorder))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: new URL(`http://127.0.0.1:${port}/mcp`),
    recorder,
    server,
    async close() {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/** Resolves when `check` returns a value other than undefined, polling every 10 ms. */
export async function until<T>(check: () => T | undefined, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = check()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}
