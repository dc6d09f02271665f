/**
 * A scheduled check that fails before storing its result (here the database refuses the write)
 * is made again soon (found by a review): the claim had moved the domain's last check to now, so
 * it waited a whole interval, an hour for a verified domain, as if checked. Now it is due again a
 * minute later, then after 2, 4, 8… minutes while it keeps failing (never later than its own
 * interval), and its last check stays what the owner was shown. Against a real DNS server on
 * loopback and an injectable clock.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { silentLogger, type Logger } from '@burrow/protocol'
import { startDnsServer, type DnsServer } from '../../../../test/helpers/dns-server.js'
import {
  CustomDomains,
  PENDING_RECHECK_MS,
  RETRY_FIRST_MS,
  VERIFIED_RECHECK_MS,
} from '../../src/domains/custom-domains.js'
import { DnsVerifier } from '../../src/domains/dns-verifier.js'
import { CustomDomainStore, type CustomDomain } from '../../src/store/custom-domain-store.js'
import { openStore } from '../../src/store/open-store.js'
import type { Store } from '../../src/store/store.js'
import { testBackends, type TestDatabase } from '../helpers/test-databases.js'

const ZONE = 'tunnels.example.com'
const MINUTE = 60_000

for (const backend of testBackends()) {
  describe(`a failed re-check of a custom domain (${backend.name})`, () => {
    let dns: DnsServer
    let database: TestDatabase
    let store: Store
    let clock: Date
    let domains: CustomDomains
    /** Results the database refuses from now on (-1: all). */
    let failing = 0
    const warnings: string[] = []

    beforeEach(async () => {
      dns = await startDnsServer()
      clock = new Date('2026-05-01T10:00:00.000Z')
      database = await backend.create()
      store = await openStore(database.config, { now: () => clock })
      failing = 0
      warnings.length = 0
      class FailingStore extends CustomDomainStore {
        override async recordCheck(...args: Parameters<CustomDomainStore['recordCheck']>) {
          if (failing !== 0) {
            failing--
            throw new Error('Query read timeout')
          }
          return super.recordCheck(...args)
        }
      }
      const log: Logger = { ...silentLogger, warn: (m: string) => void warnings.push(m) }
      domains = new CustomDomains({
        store: new FailingStore(store.db, () => clock),
        verifier: new DnsVerifier({ servers: [dns.address], timeoutMs: 1000 }),
        zone: ZONE,
        planOf: async () => 'pro',
        log,
        now: () => clock,
      })
    })
    afterEach(async () => {
      await store.close()
      await database.drop()
      await dns.close()
    })

    async function addDomain(): Promise<{ d: CustomDomain; tunnel: string; account: string }> {
      const a = await store.createAccount({ email: 'p@example.com', slug: 'acme', plan: 'pro' })
      const tunnel = (await store.createTunnel({ accountId: a.id, name: 'files' })).tunnel.id
      return { d: await domains.add(a.id, tunnel, 'mcp.example.org'), tunnel, account: a.id }
    }

    it('checks a verified domain again a minute after its check failed, not an hour', async () => {
      const { d, tunnel, account } = await addDomain()
      dns.records.set(`_burrow-challenge.${d.domain}`, [{ type: 'TXT', data: d.token }])
      dns.records.set(d.domain, [{ type: 'CNAME', domain: `files--acme.${ZONE}` }])
      assert.equal(await domains.recheck(), 1)
      const checked = (await new CustomDomainStore(store.db).list(account, tunnel))[0]!
      assert.equal(checked.state, 'verified')

      // An hour later its re-check is claimed, and the database refuses its result.
      clock = new Date(clock.getTime() + VERIFIED_RECHECK_MS)
      failing = 1
      assert.equal(await domains.recheck(), 1)
      const [after] = await new CustomDomainStore(store.db).list(account, tunnel)
      const warned = warnings.join('\n')
      // Not checked again at once (no loop), nor before its minute...
      assert.equal(await domains.recheck(), 0)
      clock = new Date(clock.getTime() + RETRY_FIRST_MS - 1000)
      assert.equal(await domains.recheck(), 0)
      // ...and then, by this node or another.
      clock = new Date(clock.getTime() + 1000)
      const other = new CustomDomains({
        store: new CustomDomainStore(store.db, () => clock),
        verifier: new DnsVerifier({ servers: [dns.address], timeoutMs: 1000 }),
        zone: ZONE,
        planOf: async () => 'pro',
        log: silentLogger,
        now: () => clock,
      })
      assert.equal(await other.recheck(), 1)
      // The failure said when, and the owner was shown the last check that happened meanwhile.
      assert.match(
        warned,
        /mcp\.example\.org: check failed: Query read timeout; checked again from 2026-05-01T11:01:00\.000Z/,
      )
      assert.deepEqual(after?.checkedAt, checked.checkedAt)
      const [rechecked] = await new CustomDomainStore(store.db).list(account, tunnel)
      assert.deepEqual(rechecked?.checkedAt, clock)
      assert.equal(rechecked?.state, 'verified')
      // Checked, it is due again after its hour, not sooner.
      assert.equal(await domains.recheck(), 0)
      clock = new Date(clock.getTime() + VERIFIED_RECHECK_MS - 1000)
      assert.equal(await domains.recheck(), 0)
    })

    it('waits twice as long after each failure in a row, at most its interval', async () => {
      await addDomain()
      failing = -1
      const start = clock.getTime()
      const attempts: number[] = []
      // A pending domain, its checks failing for half an hour, a round every half minute.
      for (let t = 0; t <= 30 * MINUTE; t += MINUTE / 2) {
        clock = new Date(start + t)
        if ((await domains.recheck()) > 0) attempts.push(t / MINUTE)
      }
      assert.deepEqual(attempts, [0, 1, 3, 7, 12, 17, 22, 27])
      assert.equal(PENDING_RECHECK_MS, 5 * MINUTE)

      // A result stored ends the back-off: the next failure waits a minute again.
      failing = 0
      clock = new Date(start + 32 * MINUTE)
      assert.equal(await domains.recheck(), 1)
      failing = 1
      clock = new Date(clock.getTime() + PENDING_RECHECK_MS)
      assert.equal(await domains.recheck(), 1)
      clock = new Date(clock.getTime() + MINUTE)
      assert.equal(await domains.recheck(), 1)
    })
  })
}
