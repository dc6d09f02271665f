/**
 * A node that cannot link to the node the directory names for a tunnel (it is down, or refuses
 * the link) says so in the log at most once a minute, with the count: every public request for
 * the tunnel meets the failure, and strangers choose how many requests that is.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { createServer } from 'node:net'
import type { AddressInfo } from 'node:net'
import { it } from 'node:test'
import { silentLogger } from '@burrow/protocol'
import { Redis } from 'ioredis'
import type { TunnelRegistry } from '../../src/broker/tunnel-registry.js'
import { LocalClusterEvents } from '../../src/cluster/cluster-events.js'
import { ClusterRouter } from '../../src/cluster/cluster-router.js'
import { TunnelDirectory } from '../../src/cluster/tunnel-directory.js'

const url = process.env.TEST_REDIS_URL

it(
  'logs links it could not open at most once a minute, however many requests meet them',
  { skip: url ? false : 'needs TEST_REDIS_URL' },
  async () => {
    const redis = new Redis(url!)
    const prefix = `test:${randomUUID()}:`
    // A port nothing listens on: every link to it fails at once.
    const probe = createServer()
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r))
    const deadPort = (probe.address() as AddressInfo).port
    await new Promise((r) => probe.close(r))
    const directory = new TunnelDirectory({ redis, keyPrefix: prefix })
    await directory.claim('t', 'node-b', `http://127.0.0.1:${deadPort}`)
    const lines: string[] = []
    const router = new ClusterRouter({
      nodeId: 'node-a',
      nodeUrl: 'http://node-a.invalid',
      secret: 'cluster-secret',
      directory,
      registry: {
        isOnline: () => false,
        route: () => Promise.resolve(null),
      } as unknown as TunnelRegistry,
      events: new LocalClusterEvents(),
      log: { ...silentLogger, warn: (line: string) => void lines.push(line) },
      queueWaitMs: 0,
    })
    try {
      for (let i = 0; i < 30; i++) assert.equal(await router.route('t', 0), null)
      const about = lines.filter((line) => line.includes(`127.0.0.1:${deadPort}`))
      assert.equal(about.length, 1, about.join('\n'))
    } finally {
      router.close()
      const keys = await redis.keys(`${prefix}*`)
      if (keys.length > 0) await redis.del(...keys)
      await redis.quit()
    }
  },
)
