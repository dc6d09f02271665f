/**
 * The custom-domain part of the store (`custom-domain-store.ts`), against SQLite always and
 * PostgreSQL when TEST_DATABASE_URL is set: two accounts verifying one domain at the same moment
 * leave exactly one verified; which domains are due for a re-check; the allowance's order after a
 * downgrade; a deleted tunnel takes its domain with it; no account reads another's domains.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import {
  CustomDomainStore,
  domainAllowance,
  type CheckOutcome,
  type DomainRoute,
} from '../../src/store/custom-domain-store.js'
import { openStore } from '../../src/store/open-store.js'
import type { Account, Store } from '../../src/store/store.js'
import { testBackends, type TestDatabase } from '../helpers/test-databases.js'

const MINUTE = 60_000

for (const backend of testBackends()) {
  describe(`CustomDomainStore (${backend.name})`, () => {
    let database: TestDatabase
    let store: Store
    let domains: CustomDomainStore
    let clock: Date

    beforeEach(async () => {
      clock = new Date('2026-06-01T00:00:00.000Z')
      database = await backend.create()
      store = await openStore(database.config, { now: () => clock })
      domains = new CustomDomainStore(store.db, () => clock)
    })
    afterEach(async () => {
      await store.close()
      await database.drop()
    })

    async function account(slug: string, plan: 'pro' | 'scale'): Promise<Account> {
      return store.createAccount({ email: `${slug}@example.com`, slug, plan })
    }

    async function tunnel(a: Account, name: string): Promise<string> {
      return (await store.createTunnel({ accountId: a.id, name })).tunnel.id
    }

    /** Begin a check of domain `id` and store `outcome` as its result at the clock's now. */
    async function record(id: string, outcome: CheckOutcome) {
      return domains.recordCheck(id, outcome, clock, (await domains.beginCheck(id))!)
    }

    it('leaves exactly one account verified when two verify one domain at once', async () => {
      const rows = await Promise.all(
        ['alpha', 'bravo', 'charlie', 'delta'].map(async (slug) => {
          const a = await account(slug, 'pro')
          return domains.add(a.id, await tunnel(a, 'files'), 'mcp.example.org')
        }),
      )
      const checked = await Promise.all(
        rows.map(async (d) => (await record(d.id, { kind: 'verified' }))?.domain),
      )
      const states = checked.map((d) => d?.state)
      assert.equal(states.filter((s) => s === 'verified').length, 1, String(states))
      for (const d of checked.filter((x) => x?.state === 'pending')) {
        assert.match(d?.problem ?? '', /already verified by another account/)
      }
      const route = (await domains.route('mcp.example.org')) as DomainRoute
      assert.equal(route.accountId, checked.find((d) => d?.state === 'verified')?.accountId)
    })

    it('lists as due: new domains at once, pending ones after 5 minutes, verified after an hour', async () => {
      const a = await account('acme', 'scale')
      const first = await domains.add(a.id, await tunnel(a, 'a'), 'a.example.org')
      clock = new Date(clock.getTime() + 1000)
      const second = await domains.add(a.id, await tunnel(a, 'b'), 'b.example.org')
      const due = (now: Date) =>
        domains.due(now, 5 * MINUTE, 60 * MINUTE, 10).then((ds) => ds.map((d) => d.domain))
      assert.deepEqual(await due(clock), ['a.example.org', 'b.example.org'])
      assert.deepEqual(
        (await domains.due(clock, 5 * MINUTE, 60 * MINUTE, 1)).map((d) => d.domain),
        ['a.example.org'],
      )
      await record(first.id, { kind: 'verified' })
      await record(second.id, { kind: 'failed', problem: 'no TXT', lapseAfterMs: 24 * 60 * MINUTE })
      assert.deepEqual(await due(clock), [])
      assert.deepEqual(await due(new Date(clock.getTime() + 5 * MINUTE)), ['b.example.org'])
      assert.deepEqual(await due(new Date(clock.getTime() + 60 * MINUTE)), [
        'a.example.org',
        'b.example.org',
      ])
    })

    it('ranks an account’s domains by age, so a smaller plan keeps the oldest', async () => {
      const a = await account('acme', 'scale')
      for (const name of ['a', 'b', 'c']) {
        const d = await domains.add(a.id, await tunnel(a, name), `${name}.example.org`)
        await record(d.id, { kind: 'verified' })
        clock = new Date(clock.getTime() + 1000)
      }
      const ranks = await Promise.all(
        ['a', 'b', 'c'].map(
          async (n) => ((await domains.route(`${n}.example.org`)) as DomainRoute).rank,
        ),
      )
      assert.deepEqual(ranks, [0, 1, 2])
      assert.equal(domainAllowance('free'), 0)
      assert.equal(domainAllowance('pro'), 1)
      assert.equal(domainAllowance('scale'), 20)
    })

    it('ranks only verified domains of serving tunnels (found by a hostile review)', async () => {
      const a = await account('acme', 'scale')
      const tunnels: string[] = []
      for (let i = 0; i < 6; i++) {
        tunnels.push(await tunnel(a, `t${i}`))
        clock = new Date(clock.getTime() + 1000)
      }
      // Oldest first: a domain left pending on t0, one verified on t5, then one verified on t1.
      const added = async (t: number, name: string, verify: boolean) => {
        const d = await domains.add(a.id, tunnels[t]!, `${name}.example.org`)
        if (verify) await record(d.id, { kind: 'verified' })
        clock = new Date(clock.getTime() + 1000)
        return d.id
      }
      const pending = await added(0, 'pending', false)
      const onSixth = await added(5, 'sixth', true)
      const onSecond = await added(1, 'second', true)
      const rank = async (name: string) =>
        ((await domains.route(`${name}.example.org`)) as DomainRoute).rank
      assert.deepEqual([await rank('sixth'), await rank('second')], [0, 1])
      // Pro serves five tunnels, t0 to t4, and one domain: the second's, not the pending one's
      // nor the one on t5, which no longer serves.
      await store.db.updateTable('accounts').set({ plan: 'pro' }).where('id', '=', a.id).execute()
      assert.equal(await rank('second'), 0)
      assert.ok((await rank('sixth')) >= domainAllowance('pro'))
      const ranks = await domains.ranks(a.id)
      assert.deepEqual([...ranks], [[onSecond, 0]])
      assert.equal(ranks.has(pending), false)
      assert.equal(ranks.has(onSixth), false)
    })

    it('forgets a deleted tunnel’s domain, and shows no account another’s', async () => {
      const a = await account('acme', 'pro')
      const b = await account('other', 'pro')
      const t = await tunnel(a, 'files')
      const d = await domains.add(a.id, t, 'mcp.example.org')
      await record(d.id, { kind: 'verified' })
      assert.deepEqual(await domains.list(b.id, t), [])
      assert.equal(await domains.get(b.id, t, 'mcp.example.org'), undefined)
      assert.equal(await domains.remove(b.id, t, 'mcp.example.org'), false)
      await store.deleteTunnel(a.id, t)
      assert.equal(await domains.route('mcp.example.org'), undefined)
      assert.deepEqual(await domains.listAccount(a.id), [])
      // The name is free again, for this account or another.
      const again = await domains.add(b.id, await tunnel(b, 'files'), 'mcp.example.org')
      assert.equal(again.state, 'pending')
    })
  })
}
