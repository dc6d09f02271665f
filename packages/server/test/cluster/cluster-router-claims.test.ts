/**
 * The router's claims in a real Redis when claims fail or entries are lost (found by a review of
 * the change that writes lost entries back): a claim made again after Redis refused it must not
 * take the tunnel from a newer connection another node claimed meanwhile, and a tunnel released
 * while the refresh loop runs must not be written back by it.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { silentLogger } from '@burrow/protocol'
import { Redis } from 'ioredis'
import type { TunnelRegistry } from '../../src/broker/tunnel-registry.js'
import { LocalClusterEvents } from '../../src/cluster/cluster-events.js'
import { ClusterRouter } from '../../src/cluster/cluster-router.js'
import { TunnelDirectory } from '../../src/cluster/tunnel-directory.js'

const url = process.env.TEST_REDIS_URL

/** A directory whose calls can be made to fail or wait, per method and tunnel. */
class FlakyDirectory extends TunnelDirectory {
  failClaims = 0
  slowRefresh: string | null = null
  /** Claims wait for this before they reach Redis, while it is set. */
  claimsWait: Promise<void> | null = null

  /** Claims' answers wait for this after they reached Redis, while it is set. */
  answersWait: Promise<void> | null = null

  override async claim(tunnelId: string, node: string, nodeUrl: string): Promise<number> {
    if (this.claimsWait) await this.claimsWait
    if (this.failClaims > 0) {
      this.failClaims -= 1
      throw new Error('Command timed out')
    }
    const answered = this.answersWait
    const epoch = await super.claim(tunnelId, node, nodeUrl)
    if (answered) await answered
    return epoch
  }

  /** How long every refresh takes (a Redis far away, or a node whose turns are slow). */
  refreshTakesMs = 0

  /** Refreshes wait for this while it is set; `refreshing` counts those waiting. */
  refreshesWait: Promise<void> | null = null
  refreshing = 0

  override async refresh(
    tunnelId: string,
    epoch: number,
    node: string,
    nodeUrl: string,
  ): Promise<'held' | 'restored' | 'lost'> {
    if (this.refreshesWait) {
      this.refreshing += 1
      await this.refreshesWait
      this.refreshing -= 1
    }
    if (tunnelId === this.slowRefresh) await sleep(400)
    if (this.refreshTakesMs > 0) await sleep(this.refreshTakesMs)
    return super.refresh(tunnelId, epoch, node, nodeUrl)
  }
}

/** Until `dir` names `node` as the holder of tunnel `t` (`what` says what never happened). */
async function heldBy(dir: TunnelDirectory, node: string, what: string): Promise<void> {
  for (let i = 0; (await dir.lookup('t'))?.node !== node; i++) {
    assert.ok(i < 100, what)
    await sleep(10)
  }
}

describe('ClusterRouter claims', { skip: url ? false : 'needs TEST_REDIS_URL' }, () => {
  let redis: Redis
  let prefix: string
  const routers: ClusterRouter[] = []

  const directory = () => new FlakyDirectory({ redis, keyPrefix: prefix, ttlMs: 3000 })
  const router = (
    nodeId: string,
    dir: TunnelDirectory,
    events: LocalClusterEvents,
    online: Set<string>,
    replaced: string[],
  ) => {
    const registry = {
      isOnline: (t: string) => online.has(t),
      replacedElsewhere: (t: string) => void replaced.push(t),
    } as unknown as TunnelRegistry
    const r = new ClusterRouter({
      nodeId,
      nodeUrl: `http://${nodeId}.invalid`,
      secret: 'cluster-secret',
      directory: dir,
      registry,
      events,
      log: silentLogger,
      queueWaitMs: 100,
    })
    routers.push(r)
    return r
  }

  beforeEach(() => {
    redis = new Redis(url!)
    prefix = `test:${randomUUID()}:`
  })

  afterEach(async () => {
    for (const r of routers.splice(0)) r.close()
    const keys = await redis.keys(`${prefix}*`)
    if (keys.length > 0) await redis.del(...keys)
    await redis.quit()
  })

  it('a claim made again after Redis refused it does not take the tunnel from a newer one', async () => {
    const events = new LocalClusterEvents()
    const older = directory()
    older.failClaims = 1
    const replacedA: string[] = []
    const replacedB: string[] = []
    const a = router('node-a', older, events, new Set(['t']), replacedA)
    const b = router('node-b', directory(), events, new Set(['t']), replacedB)
    a.held('t') // refused by Redis: made again at A's next refresh
    await sleep(50)
    b.held('t') // a newer client on node B
    for (let i = 0; (await older.lookup('t'))?.node !== 'node-b'; i++) {
      assert.ok(i < 100, 'B never claimed the tunnel')
      await sleep(20)
    }
    await sleep(1_500) // past A's refresh (every second)
    assert.equal((await older.lookup('t'))?.node, 'node-b')
    assert.deepEqual(replacedB, [], 'the newest connection stays')
    assert.deepEqual(replacedA, ['t'], 'the older one is told another took the tunnel')
  })

  it('a claim made after Redis lost its data wins over an older holder writing its entry back', async () => {
    const events = new LocalClusterEvents()
    const replacedB: string[] = []
    const replacedC: string[] = []
    const dir = directory()
    // Node B holds the tunnel (its client resumed there once: a second claim)...
    const b = router('node-b', dir, events, new Set(), replacedB)
    b.held('t')
    for (let i = 0; (await dir.lookup('t')) === null; i++) {
      assert.ok(i < 100, 'B never claimed the tunnel')
      await sleep(20)
    }
    const first = (await dir.lookup('t'))!.epoch
    b.held('t')
    for (let i = 0; (await dir.lookup('t'))!.epoch === first; i++) {
      assert.ok(i < 100, 'B never claimed the tunnel again')
      await sleep(20)
    }
    const held = (await dir.lookup('t'))!.epoch
    // ...Redis restarts empty, and the client, gone from B (its grace running there), connects
    // to node C.
    const keys = await redis.keys(`${prefix}*`)
    await redis.del(...keys)
    // A restart takes longer than the counter's lead over the clock (a claim or two a ms).
    for (let ms = 0; ms <= held;) {
      const [secs = 0, micros = 0] = await redis.time()
      ms = Number(secs) * 1000 + Math.floor(Number(micros) / 1000)
    }
    router('node-c', directory(), events, new Set(['t']), replacedC).held('t')
    await sleep(2_500) // past both nodes' refreshes (every second)
    assert.deepEqual(replacedC, [], 'the newest connection stays')
    assert.equal((await dir.lookup('t'))?.node, 'node-c')
    assert.deepEqual(replacedB, ['t'], 'the older holder is told another took the tunnel')
  })

  it('a client gone while its claim was on its way leaves no entry behind', async () => {
    const dir = directory()
    let letGo!: () => void
    dir.claimsWait = new Promise<void>((resolve) => (letGo = resolve))
    const a = router('node-a', dir, new LocalClusterEvents(), new Set(), [])
    a.held('t')
    a.gone('t') // its key rotated, say, before Redis answered the claim
    dir.claimsWait = null
    letGo()
    for (let i = 0; (await redis.exists(`${prefix}dir-epoch:t`)) === 0; i++) {
      assert.ok(i < 100, 'the claim never reached Redis')
      await sleep(10)
    }
    await sleep(1_500) // past A's refresh (every second)
    assert.equal(await dir.lookup('t'), null, 'no node holds a tunnel whose client went')
    assert.equal(a.heldCount, 0)
  })

  it('a newer client on this node is not told another took the tunnel while its claim is on its way', async () => {
    const events = new LocalClusterEvents()
    const replacedA: string[] = []
    const replacedB: string[] = []
    const slow = directory()
    const a = router('node-a', slow, events, new Set(['t']), replacedA)
    const b = router('node-b', directory(), events, new Set(['t']), replacedB)
    a.held('t')
    for (let i = 0; (await slow.lookup('t')) === null; i++) {
      assert.ok(i < 100, 'A never claimed the tunnel')
      await sleep(10)
    }
    // The client reconnects to A; its claim is on its way when B's client connects (same key).
    let letGo!: () => void
    slow.claimsWait = new Promise<void>((resolve) => (letGo = resolve))
    a.held('t')
    b.held('t')
    await heldBy(slow, 'node-b', 'B never claimed the tunnel')
    await sleep(50) // B's announcement reaches A (in process)
    slow.claimsWait = null
    letGo() // A's claim reaches Redis last: A's client is the newest
    await heldBy(slow, 'node-a', "A's claim never landed")
    await sleep(1_500) // past both refreshes (every second)
    assert.equal((await slow.lookup('t'))?.node, 'node-a')
    assert.deepEqual(replacedA, [], "A's newest client stays")
    assert.deepEqual(replacedB, ['t'], "B's client is told another took the tunnel")
  })

  it("a claim answered after a newer node's announcement gives the tunnel up at once", async () => {
    const events = new LocalClusterEvents()
    const replacedA: string[] = []
    const replacedB: string[] = []
    const slow = directory()
    const a = router('node-a', slow, events, new Set(['t']), replacedA)
    const b = router('node-b', directory(), events, new Set(['t']), replacedB)
    // A's refreshes wait: only the claim's answer can tell A it lost.
    slow.refreshesWait = new Promise<void>(() => {})
    let answer!: () => void
    slow.answersWait = new Promise<void>((resolve) => (answer = resolve))
    a.held('t') // reaches Redis first; its answer is late
    await heldBy(slow, 'node-a', "A's claim never reached Redis")
    slow.answersWait = null
    b.held('t') // the newer claim, announced to A while A's answer is on its way
    await heldBy(slow, 'node-b', 'B never claimed the tunnel')
    await sleep(50) // B's announcement reaches A (in process)
    answer()
    // Before, A set its older epoch as held and served its client until a refresh found out
    // (a third of the entry's lifetime, 5 s by default), both nodes serving the tunnel.
    for (let i = 0; replacedA.length === 0; i++) {
      assert.ok(i < 100, 'A kept the tunnel B took after it')
      await sleep(10)
    }
    assert.deepEqual(replacedA, ['t'])
    assert.deepEqual(replacedB, [])
    assert.equal(a.heldCount, 0)
  })

  it('a claim answered after the node closed is given back', async () => {
    const dir = directory()
    const a = router('node-a', dir, new LocalClusterEvents(), new Set(['t']), [])
    let answer!: () => void
    dir.answersWait = new Promise<void>((resolve) => (answer = resolve))
    a.held('t')
    await heldBy(dir, 'node-a', "A's claim never reached Redis")
    a.close()
    answer()
    // Before, the answer made the closed node hold the tunnel, announced, until the entry expired.
    for (let i = 0; (await dir.lookup('t')) !== null; i++) {
      assert.ok(i < 100, 'the closed node kept its entry')
      await sleep(10)
    }
    assert.equal(a.heldCount, 0)
  })

  it('runs one refresh loop at a time while Redis does not answer', async () => {
    const dir = directory()
    const a = router('node-a', dir, new LocalClusterEvents(), new Set(['t1', 't2']), [])
    a.held('t1')
    a.held('t2')
    for (let i = 0; a.heldCount < 2; i++) {
      assert.ok(i < 100, 'A never held both tunnels')
      await sleep(10)
    }
    // Redis away: each refresh waits (up to the command timeout, every one of the loop's).
    let letGo!: () => void
    dir.refreshesWait = new Promise<void>((resolve) => (letGo = resolve))
    await sleep(3_500) // three turns of the loop (every second)
    const waiting = dir.refreshing
    dir.refreshesWait = null
    letGo()
    assert.equal(
      waiting,
      2,
      "a loop began while the one before waited (each waits in both tunnels' refreshes)",
    )
  })

  it('lets no entry of the tunnels it holds expire while it refreshes them', async () => {
    // 80 refreshes of 50 ms each: one after the other, a loop took 4 s, past the entries' 3 s
    // (as 8,000 tunnels do at half a millisecond each, a Redis round trip and a turn of a busy
    // node's event loop), and other nodes found no holder for tunnels online here.
    const dir = directory()
    dir.refreshTakesMs = 50
    const ids = Array.from({ length: 80 }, (_, i) => `t${i}`)
    const a = router('node-a', dir, new LocalClusterEvents(), new Set(ids), [])
    for (const id of ids) a.held(id)
    for (let i = 0; a.heldCount < ids.length; i++) {
      assert.ok(i < 100, 'A never held every tunnel')
      await sleep(10)
    }
    // Past the entries' lifetime, over several turns of the loop (every second).
    for (let turn = 0; turn < 45; turn++) {
      const entries = await Promise.all(ids.map((id) => dir.lookup(id)))
      const lost = ids.filter((_, i) => entries[i] === null)
      assert.deepEqual(lost, [], 'entries expired while their holder ran')
      await sleep(100)
    }
  })

  it('a claim Redis refused is made again while its client is connected', async () => {
    const dir = directory()
    dir.failClaims = 1
    router('node-a', dir, new LocalClusterEvents(), new Set(['t']), []).held('t')
    for (let i = 0; (await dir.lookup('t')) === null; i++) {
      assert.ok(i < 150, 'the claim was never made again')
      await sleep(20)
    }
    assert.equal((await dir.lookup('t'))?.node, 'node-a')
  })

  it('a tunnel released while the refresh loop runs is not written back', async () => {
    const dir = directory()
    dir.slowRefresh = 't1'
    const a = router('node-a', dir, new LocalClusterEvents(), new Set(['t1', 't2']), [])
    a.held('t1')
    a.held('t2')
    for (let i = 0; (await dir.lookup('t2')) === null; i++) {
      assert.ok(i < 100)
      await sleep(10)
    }
    await sleep(1_100) // the loop (every second) waits in t1's slow refresh
    a.gone('t2')
    await sleep(800) // past the loop's turn for t2
    assert.equal(await dir.lookup('t2'), null)
  })
})
