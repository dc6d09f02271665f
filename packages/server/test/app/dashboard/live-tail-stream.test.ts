// The live tail's end: whatever ends it (a sign-out, a failed check), nothing is written after,
// the watcher is let go at once, and a page that never read is cut off rather than held.
import assert from 'node:assert/strict'
import { createServer, get, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { it } from 'node:test'
import { serveLiveTail, TailSessions } from '../../../src/app/dashboard/live-tail-stream.js'
import type { CallRecord } from '../../../src/quota/call-history.js'

const CALL: CallRecord = {
  tunnelId: 'tun_1',
  at: new Date(),
  method: 'tools/call',
  tool: 'echo',
  status: 200,
  policyCode: null,
  durationMs: 1,
  requestBody: '{}',
  responseBody: '{}',
}

it('writes nothing after a sign-out ends the tail, and lets its watcher go at once', async () => {
  const sessions = new TailSessions()
  let watcher: { send(e: { type: 'call'; call: CallRecord }): boolean } | undefined
  let stopped = 0
  const server = createServer((_req, res) => {
    serveLiveTail(res, {
      tunnelId: 'tun_1',
      watch: (w) => {
        watcher = w
        return () => stopped++
      },
      stillAllowed: () => Promise.resolve(true),
      sessions,
      sessionToken: 'session-1',
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const uncaught: unknown[] = []
  const onUncaught = (err: unknown) => uncaught.push(err)
  process.prependListener('uncaughtException', onUncaught)
  try {
    // A page that reads the first bytes and then nothing more.
    const page = await new Promise<IncomingMessage>((resolve) =>
      get({ host: '127.0.0.1', port, path: '/' }, (res) => res.once('data', () => resolve(res))),
    )
    page.pause()
    sessions.end('session-1')
    assert.equal(stopped, 1, 'the watcher is let go when the tail ends, not when the page closes')
    assert.equal(sessions.size, 0)
    // A call recorded in the same moment goes nowhere, and nothing fails.
    assert.equal(watcher!.send({ type: 'call', call: CALL }), true)
    await new Promise((resolve) => page.once('close', resolve))
    await new Promise((resolve) => setTimeout(resolve, 50))
    assert.deepEqual(uncaught, [])
  } finally {
    process.removeListener('uncaughtException', onUncaught)
    server.closeAllConnections()
    server.close()
  }
})

it('lets go of a tail whose page went away before it started', async () => {
  const sessions = new TailSessions()
  let stopped = 0
  let served: () => void = () => {}
  const started = new Promise<void>((resolve) => (served = resolve))
  const server = createServer((req, res) => {
    // The route looks the tunnel up first; the page hangs up meanwhile.
    req.socket.once('close', () => {
      serveLiveTail(res, {
        tunnelId: 'tun_1',
        watch: () => () => stopped++,
        stillAllowed: () => Promise.resolve(true),
        sessions,
        sessionToken: 'session-1',
      })
      served()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  try {
    const request = get({ host: '127.0.0.1', port, path: '/' })
    request.on('error', () => {})
    setTimeout(() => request.destroy(), 50)
    await started
    assert.equal(stopped, 1, 'the watcher is let go')
    assert.equal(sessions.size, 0)
  } finally {
    server.closeAllConnections()
    server.close()
  }
})
