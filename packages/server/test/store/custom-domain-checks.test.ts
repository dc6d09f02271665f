/**
 * The custom-domain checks in the store (`custom-domain-checks.ts`), against SQLite always and
 * PostgreSQL when TEST_DATABASE_URL is set: results stored in the order their checks began, a
 * claim refused once another check began, a failed claim given back with a retry time, and a
 * lapse judged by the failure's start as stored.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { CustomDomainStore, type CustomDomain } from '../../src/store/custom-domain-store.js'
import { openStore } from '../../src/store/open-store.js'
import type { Store } from '../../src/store/store.js'
import { testBackends, type TestDatabase } from '../helpers/test-databases.js'

const MINUTE = 60_000
const DAY = 24 * 60 * MINUTE
const MISSING = { kind: 'failed', problem: 'no TXT record', lapseAfterMs: DAY } as const

for (const backend of testBackends()) {
  describe(`custom domain checks in the store (${backend.name})`, () => {
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

    async function added(): Promise<CustomDomain> {
      const a = await store.createAccount({ email: 'a@example.com', slug: 'acme', plan: 'pro' })
      const t = (await store.createTunnel({ accountId: a.id, name: 'files' })).tunnel.id
      return domains.add(a.id, t, 'mcp.example.org')
    }

    const later = (ms: number) => (clock = new Date(clock.getTime() + ms))
    const due = async () => (await domains.due(clock, 5 * MINUTE, 60 * MINUTE, 10)).map((d) => d.id)

    it('drops the result of a check begun before one whose result is stored', async () => {
      const d = await added()
      const [first, second] = [(await domains.beginCheck(d.id))!, (await domains.beginCheck(d.id))!]
      assert.ok(second > first)
      const newer = await domains.recordCheck(d.id, { kind: 'verified' }, clock, second)
      assert.deepEqual(
        [newer?.stored, newer?.changed, newer?.domain.state],
        [true, true, 'verified'],
      )
      later(1000)
      const older = await domains.recordCheck(d.id, MISSING, clock, first)
      // Not stored: the caller gets the row as stored, the newer check's result.
      assert.deepEqual([older?.stored, older?.changed], [false, false])
      assert.equal(older?.domain.state, 'verified')
      assert.equal(older?.domain.problem, null)
      assert.equal(older?.domain.failingSince, null)
      // A result from a check begun later still is stored.
      const third = (await domains.beginCheck(d.id))!
      const latest = await domains.recordCheck(d.id, MISSING, clock, third)
      assert.equal(latest?.stored, true)
      assert.equal(latest?.domain.problem, 'no TXT record')
      assert.equal(await domains.beginCheck('dom_gone'), undefined)
      assert.equal(await domains.recordCheck('dom_gone', MISSING, clock, 1), undefined)
    })

    it('keeps the newest check’s result whichever of two writes lands first', async () => {
      const d = await added()
      for (let round = 0; round < 5; round++) {
        const older = (await domains.beginCheck(d.id))!
        const newer = (await domains.beginCheck(d.id))!
        const writes = [
          domains.recordCheck(d.id, round % 2 ? MISSING : { kind: 'verified' }, clock, older),
          domains.recordCheck(d.id, round % 2 ? { kind: 'verified' } : MISSING, clock, newer),
        ]
        await Promise.all(round % 2 ? writes.reverse() : writes)
        const [row] = await domains.listAccount(d.accountId)
        assert.equal(row?.problem, round % 2 ? null : 'no TXT record', `round ${round}`)
        later(1000)
      }
    })

    it('refuses a claim once another check began, and takes one read since', async () => {
      const d = await added()
      const [seen] = await domains.due(clock, 5 * MINUTE, 60 * MINUTE, 10)
      // The owner pressed "Check now" after this node read the domain due.
      await domains.beginCheck(d.id)
      assert.equal(await domains.claimCheck(seen!, clock), null)
      const [fresh] = await domains.due(clock, 5 * MINUTE, 60 * MINUTE, 10)
      const claim = await domains.claimCheck(fresh!, clock)
      assert.ok(claim !== null)
      assert.equal(claim.check, fresh!.checksBegun + 1)
      // Claimed, it is no longer due, and nobody claims it twice.
      assert.deepEqual(await due(), [])
      assert.equal(await domains.claimCheck(fresh!, clock), null)
    })

    it('gives a failed claim back: its last check as before, due again at its retry', async () => {
      const d = await added()
      const checked = await domains.recordCheck(
        d.id,
        MISSING,
        clock,
        (await domains.beginCheck(d.id))!,
      )
      later(5 * MINUTE)
      const [seen] = await domains.due(clock, 5 * MINUTE, 60 * MINUTE, 10)
      const claim = (await domains.claimCheck(seen!, clock))!
      later(10_000)
      const retry = await domains.releaseClaim(d.id, claim, clock, (failures, state) => {
        assert.deepEqual([failures, state], [0, 'pending'])
        return 2 * MINUTE
      })
      assert.deepEqual(retry, new Date(clock.getTime() + 2 * MINUTE))
      const [row] = await domains.listAccount(d.accountId)
      assert.deepEqual(row?.checkedAt, checked?.domain.checkedAt)
      // Due at its retry, not before (though its last check is older than 5 minutes).
      assert.deepEqual(await due(), [])
      later(2 * MINUTE - 1)
      assert.deepEqual(await due(), [])
      later(1)
      assert.deepEqual(await due(), [d.id])
      // Claimed and failed again: the delay is told of the failure before.
      const [again] = await domains.due(clock, 5 * MINUTE, 60 * MINUTE, 10)
      const second = (await domains.claimCheck(again!, clock))!
      assert.deepEqual(await due(), [])
      let told = -1
      await domains.releaseClaim(d.id, second, clock, (failures) => ((told = failures), MINUTE))
      assert.equal(told, 1)
    })

    it('gives nothing back when a result was stored since the claim', async () => {
      const d = await added()
      const [seen] = await domains.due(clock, 5 * MINUTE, 60 * MINUTE, 10)
      const claim = (await domains.claimCheck(seen!, clock))!
      later(1000)
      // The owner's check, begun after the claim, stored its result; the claimed one then failed.
      const owners = (await domains.beginCheck(d.id))!
      await domains.recordCheck(d.id, { kind: 'verified' }, clock, owners)
      assert.equal(await domains.releaseClaim(d.id, claim, clock, () => MINUTE), null)
      const [row] = await domains.listAccount(d.accountId)
      assert.deepEqual(row?.checkedAt, clock)
      later(59 * MINUTE)
      assert.deepEqual(await due(), [])
    })

    it('lapses a verified domain by the failure’s start as stored, not as last read', async () => {
      const d = await added()
      const check = async () => (await domains.beginCheck(d.id))!
      await domains.recordCheck(d.id, { kind: 'verified' }, clock, await check())
      await domains.recordCheck(d.id, MISSING, clock, await check())
      later(DAY + MINUTE)
      // Read by a scheduled check while failing a day; its records come back before it ends.
      const [stale] = await domains.listAccount(d.accountId)
      assert.ok(stale?.failingSince !== null)
      const scheduled = await check()
      await domains.recordCheck(d.id, { kind: 'verified' }, clock, await check())
      const found = await domains.recordCheck(d.id, MISSING, clock, scheduled)
      assert.equal(found?.stored, false)
      // A later check finds them gone again: a new day of failure begins, no lapse.
      const next = await domains.recordCheck(d.id, MISSING, clock, await check())
      assert.equal(next?.domain.state, 'verified')
      assert.deepEqual(next?.domain.failingSince, clock)
      later(DAY)
      const lapsed = await domains.recordCheck(d.id, MISSING, clock, await check())
      assert.deepEqual([lapsed?.domain.state, lapsed?.changed], ['pending', true])
    })
  })
}
