// Opening governance with several nodes (Redis): it resolves once this node hears the events the
// other nodes publish, so a node serves nothing before its subscription is in place (before, it
// did, and what others published meanwhile, such as shared rate-limit spends, was missed); and a
// Redis that never answers holds start-up only up to a bound, with a warning, not for good.
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { createServer, type AddressInfo, type Socket } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { createLogger, silentLogger } from '@burrow/protocol'
import { Redis } from 'ioredis'
import type { ClusterEvent } from '../../src/cluster/cluster-events.js'
import { loadConfig } from '../../src/config.js'
import { openGovernance } from '../../src/governance/open-governance.js'
import { REDIS_KEY_PREFIX } from '../../src/quota/usage-admin-settings.js'
import { openStore } from '../../src/store/open-store.js'
import type { Store } from '../../src/store/store.js'
import { testBackends, type TestDatabase } from '../helpers/test-databases.js'

const url = process.env.TEST_REDIS_URL
const rugPull = {
  dashboardUrl: 'http://127.0.0.1/dashboard/tunnels/',
  onToolChange: async () => {},
}
const history = { record: () => {} }

describe('openGovernance with Redis', () => {
  let database: TestDatabase
  let store: Store

  before(async () => {
    database = await testBackends()[0]!.create()
    store = await openStore(loadConfig({ BURROW_DATA_DIR: database.config.dataDir }))
  })

  after(async () => {
    await store.close()
    await database.drop()
  })

  const configFor = (redisUrl: string) =>
    loadConfig({ BURROW_DATA_DIR: database.config.dataDir, BURROW_REDIS_URL: redisUrl })

  it(
    'resolves once the node hears what another node publishes',
    { skip: url ? false : 'needs TEST_REDIS_URL' },
    async () => {
      const other = new Redis(url!)
      await other.ping()
      const governance = await openGovernance(
        configFor(url!),
        store,
        history,
        silentLogger,
        `node_${randomUUID()}`,
        rugPull,
      )
      try {
        const accountId = `acc_${randomUUID()}`
        const heard = new Promise<ClusterEvent>((resolve) =>
          governance.events.subscribe((event) => {
            if (event.type === 'account' && event.accountId === accountId) resolve(event)
          }),
        )
        // Published at once: nothing waits for the subscription but openGovernance itself.
        const message = { from: 'node_other', event: { type: 'account', accountId } }
        const receivers = await other.publish(`${REDIS_KEY_PREFIX}events`, JSON.stringify(message))
        assert.ok(receivers >= 1, 'the new node was subscribed when openGovernance resolved')
        assert.deepEqual(await heard, { type: 'account', accountId })
      } finally {
        await governance.close()
        other.disconnect()
      }
    },
  )

  it('starts after the bound, with a warning, when Redis never answers', async () => {
    // Accepts connections and says nothing, as a Redis behind a stalled network would.
    const sockets: Socket[] = []
    const silent = createServer((socket) => void sockets.push(socket))
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r))
    const { port } = silent.address() as AddressInfo
    const lines: string[] = []
    const log = createLogger('info', (line) => lines.push(line))
    const governance = await openGovernance(
      configFor(`redis://127.0.0.1:${port}`),
      store,
      history,
      log,
      `node_${randomUUID()}`,
      rugPull,
      { subscriptionWaitMs: 50 },
    )
    const warned = lines.filter((l) => l.includes('cluster events'))
    assert.equal(warned.length, 1, lines.join('\n'))
    assert.match(warned[0]!, /WARN/)
    assert.match(warned[0]!, /not subscribed.*serving anyway/)
    assert.ok(sockets.length >= 1, 'it tried that Redis')
    for (const socket of sockets) socket.destroy()
    silent.close()
    await governance.close()
  })
})
