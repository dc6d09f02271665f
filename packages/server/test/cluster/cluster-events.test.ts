// Cluster events over a real Redis: what one node publishes, the others (and itself) receive once;
// and a node started while Redis cannot be reached waits for it instead of crashing (a review
// found that the subscription failed after one retry, unhandled, which ends the process); events
// Redis does not take are warned of once a minute with their count, not one line each.
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { connect, createServer, type AddressInfo } from 'node:net'
import { describe, it } from 'node:test'
import { createLogger, silentLogger } from '@burrow/protocol'
import { KeyGuard } from '../../src/broker/key-guard.js'
import { SharedRateLimits } from '../../src/cluster/shared-rate-limits.js'
import { freePort } from '../../../../test/helpers/free-port.js'
import {
  LocalClusterEvents,
  PUBLISH_FAILURES_LOG_MS,
  RedisClusterEvents,
  type ClusterEvent,
} from '../../src/cluster/cluster-events.js'

const url = process.env.TEST_REDIS_URL

describe('cluster events', () => {
  it('deliver in process without Redis', async () => {
    const events = new LocalClusterEvents()
    const got: ClusterEvent[] = []
    events.subscribe((e) => got.push(e))
    await events.publish({ type: 'account', accountId: 'acc_1' })
    assert.deepEqual(got, [{ type: 'account', accountId: 'acc_1' }])
  })

  it(
    'reach every node once through Redis',
    { skip: url ? false : 'needs TEST_REDIS_URL' },
    async () => {
      const prefix = `test:${randomUUID()}:`
      const a = new RedisClusterEvents({
        url: url!,
        node: 'a',
        log: silentLogger,
        keyPrefix: prefix,
      })
      const b = new RedisClusterEvents({
        url: url!,
        node: 'b',
        log: silentLogger,
        keyPrefix: prefix,
      })
      await Promise.all([a.ready(), b.ready()])
      const atA: ClusterEvent[] = []
      const atB: ClusterEvent[] = []
      a.subscribe((e) => atA.push(e))
      b.subscribe((e) => atB.push(e))
      const received = new Promise<void>((resolve) => b.subscribe(() => resolve()))
      await a.publish({ type: 'tunnel', tunnelId: 'tun_1' })
      await received
      await new Promise((r) => setTimeout(r, 50))
      assert.deepEqual(atA, [{ type: 'tunnel', tunnelId: 'tun_1' }])
      assert.deepEqual(atB, [{ type: 'tunnel', tunnelId: 'tun_1' }])
      await Promise.all([a.close(), b.close()])
    },
  )

  it('logs publishes Redis refused in aggregate, not one line per event', async () => {
    // Rate limits shared by the nodes publish an event per failed tunnel key, sign-in attempt or
    // crash report: with Redis down, each was one warning, so strangers wrote the log line per
    // attempt that the tunnel-key throttle promises never to write.
    const port = await freePort()
    const lines: string[] = []
    const log = createLogger('info', (line) => lines.push(line))
    let clock = 0
    const now = () => clock
    const url = `redis://127.0.0.1:${port}`
    const events = new RedisClusterEvents({ url, node: 'a', log, now })
    const guard = new KeyGuard({ log, now, limits: new SharedRateLimits({ events, node: 'a' }) })
    const failures = () => lines.filter((l) => l.includes('could not publish'))
    for (let i = 0; i < 20; i++) {
      assert.equal(guard.check(`203.0.113.${i}`).ok, true)
      guard.failed(`203.0.113.${i}`)
    }
    // Commands of one connection fail in order: once this one has, the guard's have too.
    await events.publish({ type: 'account', accountId: 'acc_1' })
    assert.equal(failures().length, 1, failures().join('\n'))
    assert.match(failures()[0]!, /could not publish an event/)
    // A minute on, the next failure tells how many failed since.
    clock += PUBLISH_FAILURES_LOG_MS
    await events.publish({ type: 'account', accountId: 'acc_1' })
    assert.equal(failures().length, 2, failures().join('\n'))
    assert.match(failures()[1]!, /could not publish 21 events/)
    await events.close()
  })

  it(
    'tells how many publishes failed unreported once Redis takes one again',
    { skip: url ? false : 'needs TEST_REDIS_URL' },
    async () => {
      // Redis behind a proxy that hangs up until it is let through.
      const target = new URL(url!)
      let through = false
      const proxy = createServer((socket) => {
        if (!through) return void socket.destroy()
        const upstream = connect(Number(target.port || 6379), target.hostname)
        socket.pipe(upstream).pipe(socket)
        socket.on('error', () => upstream.destroy())
        upstream.on('error', () => socket.destroy())
      })
      await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r))
      const { port } = proxy.address() as AddressInfo
      const lines: string[] = []
      const log = createLogger('info', (line) => lines.push(line))
      const events = new RedisClusterEvents({ url: `redis://127.0.0.1:${port}`, node: 'a', log })
      for (let i = 0; i < 5; i++) void events.publish({ type: 'account', accountId: 'acc_1' })
      await events.publish({ type: 'account', accountId: 'acc_1' })
      assert.deepEqual(
        lines.filter((l) => l.includes('could not publish')).length,
        1,
        'one warning at first',
      )
      through = true
      await events.ready()
      await events.publish({ type: 'account', accountId: 'acc_1' })
      assert.ok(
        lines.some((l) => l.includes('5 more events could not be published')),
        lines.join('\n'),
      )
      await events.close()
      proxy.close()
    },
  )

  it('waits for a Redis it cannot reach yet instead of failing', async () => {
    const port = await freePort()
    const events = new RedisClusterEvents({
      url: `redis://127.0.0.1:${port}`,
      node: 'a',
      log: silentLogger,
    })
    // Past the retry after which a command of the other connections fails.
    await new Promise((r) => setTimeout(r, 1_500))
    let settled = false
    void events.ready().then(() => (settled = true))
    await new Promise((r) => setTimeout(r, 50))
    assert.equal(settled, false, 'still waiting for Redis')
    await events.close()
  })
})
