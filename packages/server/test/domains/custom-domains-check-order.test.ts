/**
 * A check's result is stored only when no check begun after it stored one first (found by a
 * review): a scheduled re-check whose DNS answer came before the owner's "Check now" and whose
 * write came after it wrote its older answer over the owner's newer one, and could even return a
 * domain its owner had just repaired to pending. Against a real DNS server on loopback; each
 * test holds one check after its DNS answer, until the other check has ended.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { silentLogger } from '@burrow/protocol'
import { startDnsServer, type DnsServer } from '../../../../test/helpers/dns-server.js'
import {
  CustomDomains,
  LAPSE_AFTER_MS,
  PENDING_RECHECK_MS,
  VERIFIED_RECHECK_MS,
} from '../../src/domains/custom-domains.js'
import { DnsVerifier, type DnsFindings } from '../../src/domains/dns-verifier.js'
import { CustomDomainStore, type CustomDomain } from '../../src/store/custom-domain-store.js'
import { openStore } from '../../src/store/open-store.js'
import type { Store } from '../../src/store/store.js'
import { testBackends, type TestDatabase } from '../helpers/test-databases.js'

const ZONE = 'tunnels.example.com'

for (const backend of testBackends()) {
  describe(`the order of a custom domain's checks (${backend.name})`, () => {
    let dns: DnsServer
    let database: TestDatabase
    let store: Store
    let clock: Date
    let domains: CustomDomains
    /** Set to hold the next check once it has its DNS answer. */
    let holdNext: { answered: () => void; release: Promise<void> } | null

    beforeEach(async () => {
      dns = await startDnsServer()
      clock = new Date('2026-05-01T10:00:00.000Z')
      database = await backend.create()
      store = await openStore(database.config, { now: () => clock })
      holdNext = null
      const real = new DnsVerifier({ servers: [dns.address], timeoutMs: 1000 })
      const verifier = {
        verify: async (...args: Parameters<DnsVerifier['verify']>): Promise<DnsFindings> => {
          const hold = holdNext
          holdNext = null
          const findings = await real.verify(...args)
          if (hold !== null) {
            hold.answered()
            await hold.release
          }
          return findings
        },
      } as unknown as DnsVerifier
      domains = new CustomDomains({
        store: new CustomDomainStore(store.db, () => clock),
        verifier,
        zone: ZONE,
        planOf: async () => 'pro',
        log: silentLogger,
        now: () => clock,
      })
    })
    afterEach(async () => {
      await store.close()
      await database.drop()
      await dns.close()
    })

    /** Hold the next check after its DNS answer: resolves when it has it; `release` ends it. */
    function holdTheNextCheck(): { answered: Promise<void>; release: () => void } {
      let answered: () => void = () => {}
      let release: () => void = () => {}
      const held = new Promise<void>((r) => (answered = r))
      holdNext = { answered, release: new Promise<void>((r) => (release = r)) }
      return { answered: held, release }
    }

    async function pendingDomain(): Promise<{ d: CustomDomain; tunnel: string; account: string }> {
      const a = await store.createAccount({ email: 'p@example.com', slug: 'acme', plan: 'pro' })
      const tunnel = (await store.createTunnel({ accountId: a.id, name: 'files' })).tunnel.id
      return { d: await domains.add(a.id, tunnel, 'mcp.example.org'), tunnel, account: a.id }
    }

    function publish(d: CustomDomain): void {
      dns.records.set(`_burrow-challenge.${d.domain}`, [{ type: 'TXT', data: d.token }])
      dns.records.set(d.domain, [{ type: 'CNAME', domain: `files--acme.${ZONE}` }])
    }

    it("keeps the owner's Check now when a re-check that began before it ends after it", async () => {
      const { d, tunnel, account } = await pendingDomain()
      publish(d)
      assert.equal(await domains.recheck(), 1)
      // The records go; a day later the domain is about to lapse.
      dns.records.delete(d.domain)
      clock = new Date(clock.getTime() + VERIFIED_RECHECK_MS)
      assert.equal(await domains.recheck(), 1)
      clock = new Date(clock.getTime() + LAPSE_AFTER_MS)

      // The scheduled re-check finds them still missing, and is slow to write that down...
      const held = holdTheNextCheck()
      const round = domains.recheck()
      await held.answered
      // ...while the owner puts the CNAME back and presses "Check now".
      publish(d)
      const checked = await domains.checkNow(d)
      assert.equal(checked.domain.state, 'verified')
      assert.equal(checked.domain.problem, null)
      held.release()
      assert.equal(await round, 1)

      const [after] = await new CustomDomainStore(store.db).list(account, tunnel)
      assert.equal(after?.state, 'verified', 'the older answer did not lapse the repaired domain')
      assert.equal(after?.failingSince, null)
      assert.equal(after?.problem, null)
      assert.equal(await domains.mayIssue(d.domain), true)
    })

    it("shows the owner the newer result when a re-check began after the owner's check and ended first", async () => {
      const { d, tunnel, account } = await pendingDomain()
      // The owner presses "Check now" before the records are there, and that check is slow...
      const held = holdTheNextCheck()
      const pressed = domains.checkNow(d)
      await held.answered
      // ...while the records appear and a scheduled re-check, begun after it, finds them.
      publish(d)
      clock = new Date(clock.getTime() + PENDING_RECHECK_MS)
      assert.equal(await domains.recheck(), 1)
      held.release()
      const checked = await pressed

      // The owner is shown the domain as stored, verified, not their older "no TXT record".
      assert.equal(checked.domain.state, 'verified')
      assert.equal(checked.domain.problem, null)
      assert.equal(checked.findings, null)
      const [after] = await new CustomDomainStore(store.db).list(account, tunnel)
      assert.equal(after?.state, 'verified')
      assert.equal(after?.problem, null)
      assert.equal(after?.failingSince, null)
    })
  })
}
