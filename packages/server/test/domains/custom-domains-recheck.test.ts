/**
 * The periodic re-check's places (found in a review of the known gaps): a round checked its
 * domains one at a time, so an account whose nameservers drop queries slowed every round for
 * everyone by seconds per domain. Now a round checks several at once, and one account's take at
 * most `RECHECK_PER_ACCOUNT` of the places. The verifier here answers when the test says so.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { silentLogger } from '@burrow/protocol'
import { CustomDomains, RECHECK_PER_ACCOUNT } from '../../src/domains/custom-domains.js'
import type { DnsFindings, DnsVerifier } from '../../src/domains/dns-verifier.js'
import { CustomDomainStore } from '../../src/store/custom-domain-store.js'
import { openStore } from '../../src/store/open-store.js'
import type { Store } from '../../src/store/store.js'
import { testBackends, type TestDatabase } from '../helpers/test-databases.js'

const backend = testBackends()[0]!
const FOUND: DnsFindings = {
  txtOk: false,
  targetOk: false,
  problems: ['no TXT record'],
  unanswered: false,
}

describe('the periodic re-check of custom domains', () => {
  let database: TestDatabase
  let store: Store

  beforeEach(async () => {
    database = await backend.create()
    store = await openStore(database.config)
  })

  afterEach(async () => {
    await store.close()
    await database.drop()
  })

  it("checks another account's domain while one account's nameservers hang", async () => {
    const asked: string[] = []
    const hanging: (() => void)[] = []
    let answered: () => void = () => {}
    const otherChecked = new Promise<void>((resolve) => (answered = resolve))
    const verifier = {
      verify: async (domain: string): Promise<DnsFindings> => {
        asked.push(domain)
        if (domain.endsWith('.slow.example')) await new Promise<void>((r) => hanging.push(r))
        else answered()
        return FOUND
      },
    } as unknown as DnsVerifier
    const domains = new CustomDomains({
      store: new CustomDomainStore(store.db),
      verifier,
      zone: 'tunnels.example.com',
      planOf: async () => 'scale',
      log: silentLogger,
    })
    const slow = await store.createAccount({ email: 's@example.com', slug: 'slow', plan: 'scale' })
    for (let i = 0; i < 4; i++) {
      const t = await store.createTunnel({ accountId: slow.id, name: `t${i}` })
      await domains.add(slow.id, t.tunnel.id, `d${i}.slow.example`)
    }
    const other = await store.createAccount({ email: 'o@example.com', slug: 'other', plan: 'pro' })
    const mine = await store.createTunnel({ accountId: other.id, name: 'mine' })
    await domains.add(other.id, mine.tunnel.id, 'mcp.fine.example')

    const round = domains.recheck()
    await otherChecked
    // The other account's domain was checked while the slow account's hung, and these held
    // no more places than their share.
    assert.equal(asked.filter((d) => d.endsWith('.slow.example')).length, RECHECK_PER_ACCOUNT)
    assert.ok(asked.includes('mcp.fine.example'))
    // The slow account's other domains are checked as its places come free.
    while (hanging.length > 0 || asked.length < 5) {
      hanging.shift()?.()
      await new Promise((r) => setImmediate(r))
    }
    assert.equal(await round, 5)
    assert.equal(new Set(asked).size, 5)
  })

  it("does not hold the next round's domains behind one account's checks still hanging", async () => {
    // Found by a hostile review: a round ended only when its last domain was checked, and no
    // round began while one was under way. One account's domains whose nameservers drop queries
    // (some 35 s a check, two at a time) held every later round, so every other account's
    // domains, added or due after it began, waited minutes for their first check.
    const asked: string[] = []
    const hanging: (() => void)[] = []
    const verifier = {
      verify: async (domain: string): Promise<DnsFindings> => {
        asked.push(domain)
        if (domain.endsWith('.slow.example')) await new Promise<void>((r) => hanging.push(r))
        return FOUND
      },
    } as unknown as DnsVerifier
    const domains = new CustomDomains({
      store: new CustomDomainStore(store.db),
      verifier,
      zone: 'tunnels.example.com',
      planOf: async () => 'scale',
      log: silentLogger,
    })
    const slow = await store.createAccount({ email: 's@example.com', slug: 'slow', plan: 'scale' })
    for (let i = 0; i < 4; i++) {
      const t = await store.createTunnel({ accountId: slow.id, name: `t${i}` })
      await domains.add(slow.id, t.tunnel.id, `d${i}.slow.example`)
    }
    const until = async (what: () => boolean, ms: number): Promise<boolean> => {
      for (const end = Date.now() + ms; !what() && Date.now() < end;)
        await new Promise((r) => setTimeout(r, 10))
      return what()
    }
    domains.start(10)
    try {
      assert.ok(await until(() => hanging.length === RECHECK_PER_ACCOUNT, 2000))
      // Added while the slow account's checks hang: due at once, checked on a later tick.
      const other = await store.createAccount({
        email: 'o@example.com',
        slug: 'other',
        plan: 'pro',
      })
      const mine = await store.createTunnel({ accountId: other.id, name: 'mine' })
      await domains.add(other.id, mine.tunnel.id, 'mcp.fine.example')
      assert.ok(
        await until(() => asked.includes('mcp.fine.example'), 1000),
        `another account's domain waited for the slow account's checks: asked ${asked.join(', ')}`,
      )
      // The slow account still holds its share and no more, and none of its domains twice.
      assert.equal(hanging.length, RECHECK_PER_ACCOUNT)
      assert.equal(asked.filter((d) => d.endsWith('.slow.example')).length, RECHECK_PER_ACCOUNT)
    } finally {
      while (hanging.length > 0 || asked.filter((d) => d.endsWith('.slow.example')).length < 4) {
        hanging.shift()?.()
        await new Promise((r) => setTimeout(r, 5))
      }
      await domains.stop()
    }
    assert.equal(new Set(asked).size, 5)
  })
  it('stops without checking the domains still in line', async () => {
    // Before, stop() waited for every domain in line, several rounds' worth behind slow
    // nameservers, and kept starting their checks after it was called.
    const asked: string[] = []
    const hanging: (() => void)[] = []
    const verifier = {
      verify: async (domain: string): Promise<DnsFindings> => {
        asked.push(domain)
        await new Promise<void>((r) => hanging.push(r))
        return FOUND
      },
    } as unknown as DnsVerifier
    const domains = new CustomDomains({
      store: new CustomDomainStore(store.db),
      verifier,
      zone: 'tunnels.example.com',
      planOf: async () => 'scale',
      log: silentLogger,
    })
    const slow = await store.createAccount({ email: 's@example.com', slug: 'slow', plan: 'scale' })
    for (let i = 0; i < 4; i++) {
      const t = await store.createTunnel({ accountId: slow.id, name: `t${i}` })
      await domains.add(slow.id, t.tunnel.id, `d${i}.slow.example`)
    }
    domains.start(10)
    for (const end = Date.now() + 2000; hanging.length < RECHECK_PER_ACCOUNT && Date.now() < end;)
      await new Promise((r) => setTimeout(r, 10))
    assert.equal(hanging.length, RECHECK_PER_ACCOUNT)
    let stopped = false
    const stopping = domains.stop().then(() => (stopped = true))
    for (const release of hanging.splice(0)) release()
    for (const end = Date.now() + 1000; !stopped && Date.now() < end;)
      await new Promise((r) => setTimeout(r, 10))
    for (const release of hanging.splice(0)) release()
    await stopping
    assert.ok(stopped, 'stop() waited only for the checks under way')
    assert.equal(asked.length, RECHECK_PER_ACCOUNT, 'no check begun after stop()')
  })
})

for (const each of testBackends()) {
  describe(`the periodic re-check with several nodes on ${each.name}`, () => {
    it('checks each due domain on one node only', async () => {
      // Found by a review: every node found the same domains due and checked them all, as many
      // DNS queries as nodes, their results written over one another.
      const database = await each.create()
      const store = await openStore(database.config)
      try {
        const asked: string[] = []
        const verifier = {
          verify: async (domain: string): Promise<DnsFindings> => {
            asked.push(domain)
            return FOUND
          },
        } as unknown as DnsVerifier
        // Each node's claims wait until both have read what is due, as when their ticks meet.
        let reads = 0
        let bothRead: () => void = () => {}
        const read = new Promise<void>((r) => (bothRead = r))
        class NodeStore extends CustomDomainStore {
          override async due(...args: Parameters<CustomDomainStore['due']>) {
            const found = await super.due(...args)
            if (++reads === 2) bothRead()
            return found
          }
          override async claimCheck(...args: Parameters<CustomDomainStore['claimCheck']>) {
            await read
            return super.claimCheck(...args)
          }
        }
        const node = () =>
          new CustomDomains({
            store: new NodeStore(store.db),
            verifier,
            zone: 'tunnels.example.com',
            planOf: async () => 'scale',
            log: silentLogger,
          })
        const [a, b] = [node(), node()]
        const owner = await store.createAccount({
          email: 'a@example.com',
          slug: 'a',
          plan: 'scale',
        })
        for (let i = 0; i < 4; i++) {
          const t = await store.createTunnel({ accountId: owner.id, name: `t${i}` })
          await a.add(owner.id, t.tunnel.id, `d${i}.example.org`)
        }
        const due = await Promise.all([a.recheck(), b.recheck()])
        // Both found them due; each was checked once.
        assert.deepEqual(due, [4, 4])
        assert.deepEqual(
          [...asked].sort(),
          ['d0', 'd1', 'd2', 'd3'].map((d) => `${d}.example.org`),
        )
        const rows = await new CustomDomainStore(store.db).listAccount(owner.id)
        assert.ok(rows.every((d) => d.checkedAt !== null && d.problem !== null))
        // Checked, they are no longer due on either node.
        assert.deepEqual([await a.recheck(), await b.recheck()], [0, 0])
      } finally {
        await store.close()
        await database.drop()
      }
    })
  })
}
