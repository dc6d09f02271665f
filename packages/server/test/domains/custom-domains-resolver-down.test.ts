/**
 * A resolver that does not answer says nothing about a domain's records (found by a hostile
 * review): before, a check whose lookups timed out counted as records missing, so a day of a
 * broken resolver (a wrong `BURROW_DNS_SERVERS` after a deploy, an outage) returned every
 * verified domain to pending in the same hour. Now such a check is noted and waited out; records
 * a resolver says are gone still lapse the domain after a day.
 */
import assert from 'node:assert/strict'
import { createSocket, type Socket } from 'node:dgram'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { silentLogger } from '@burrow/protocol'
import { startDnsServer, type DnsServer } from '../../../../test/helpers/dns-server.js'
import {
  CustomDomains,
  LAPSE_AFTER_MS,
  VERIFIED_RECHECK_MS,
} from '../../src/domains/custom-domains.js'
import { DnsVerifier } from '../../src/domains/dns-verifier.js'
import { CustomDomainStore } from '../../src/store/custom-domain-store.js'
import { openStore } from '../../src/store/open-store.js'
import type { Store } from '../../src/store/store.js'
import { testBackends, type TestDatabase } from '../helpers/test-databases.js'

const ZONE = 'tunnels.example.com'
const backend = testBackends()[0]!

describe('custom domains when the resolver does not answer', () => {
  let dns: DnsServer
  let silent: Socket
  let database: TestDatabase
  let store: Store
  let clock: Date

  beforeEach(async () => {
    dns = await startDnsServer()
    // A "resolver" that reads every query and answers none.
    silent = createSocket('udp4')
    await new Promise<void>((resolve) => silent.bind(0, '127.0.0.1', resolve))
    clock = new Date('2026-05-01T10:00:00.000Z')
    database = await backend.create()
    store = await openStore(database.config, { now: () => clock })
  })
  afterEach(async () => {
    await store.close()
    await database.drop()
    await dns.close()
    silent.close()
  })

  function domainsAsking(servers: string): CustomDomains {
    return new CustomDomains({
      store: new CustomDomainStore(store.db, () => clock),
      verifier: new DnsVerifier({ servers: [servers], timeoutMs: 100 }),
      zone: ZONE,
      planOf: async () => 'pro',
      log: silentLogger,
      now: () => clock,
    })
  }

  it('keeps a verified domain through a day of timeouts, and still lapses one whose records go', async () => {
    const account = await store.createAccount({ email: 'p@example.com', slug: 'acme', plan: 'pro' })
    const tunnel = (await store.createTunnel({ accountId: account.id, name: 'files' })).tunnel.id
    const working = domainsAsking(dns.address)
    const d = await working.add(account.id, tunnel, 'mcp.example.org')
    dns.records.set(`_burrow-challenge.${d.domain}`, [{ type: 'TXT', data: d.token }])
    dns.records.set(d.domain, [{ type: 'CNAME', domain: `files--acme.${ZONE}` }])
    assert.equal(await working.recheck(), 1)
    assert.equal(await working.mayIssue(d.domain), true)

    const { port } = silent.address()
    const broken = domainsAsking(`127.0.0.1:${port}`)
    // Checked an hour later, and again once a day has passed since.
    for (const after of [VERIFIED_RECHECK_MS, LAPSE_AFTER_MS + VERIFIED_RECHECK_MS]) {
      clock = new Date(clock.getTime() + after)
      assert.equal(await broken.recheck(), 1)
    }
    const [kept] = await new CustomDomainStore(store.db).list(account.id, tunnel)
    assert.equal(kept?.state, 'verified', 'a resolver that times out proves no records missing')
    assert.equal(kept?.failingSince, null)
    assert.match(
      kept?.problem ?? '',
      /^the DNS did not answer for _burrow-challenge\.mcp\.example\.org \(ETIMEOUT\); it is checked again later; the DNS did not answer whether mcp\.example\.org points at the service \(ETIMEOUT\)/,
    )
    assert.equal(await broken.mayIssue(d.domain), true)

    // The resolver answers again and says the records are gone: a day later, the domain lapses.
    dns.records.delete(d.domain)
    clock = new Date(clock.getTime() + VERIFIED_RECHECK_MS)
    assert.equal(await working.recheck(), 1)
    const [failing] = await new CustomDomainStore(store.db).list(account.id, tunnel)
    assert.equal(failing?.state, 'verified')
    assert.deepEqual(failing?.failingSince, clock)
    clock = new Date(clock.getTime() + LAPSE_AFTER_MS)
    assert.equal(await working.recheck(), 1)
    const [lapsed] = await new CustomDomainStore(store.db).list(account.id, tunnel)
    assert.equal(lapsed?.state, 'pending')
  })
})
