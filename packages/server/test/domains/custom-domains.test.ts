/**
 * Custom domains over a real store (SQLite, and PostgreSQL when TEST_DATABASE_URL is set) and a
 * real DNS server on loopback: adding within the plan's allowance (none on Free, one on Pro, one
 * per tunnel on Scale; one per tunnel always), every refused name, verification by DNS, another
 * account's claim, the periodic re-check on an injected clock (a verified domain whose records
 * vanish lapses after a day), and what routing and Caddy's TLS question answer, downgrade
 * included.
 */
import assert from 'node:assert/strict'
import { after, afterEach, before, beforeEach, describe, it } from 'node:test'
import { silentLogger, tunnelHostLabel } from '@burrow/protocol'
import { startDnsServer, type DnsServer } from '../../../../test/helpers/dns-server.js'
import {
  CustomDomains,
  DOMAINS_ADDED_PER_DAY,
  LAPSE_AFTER_MS,
  VERIFIED_RECHECK_MS,
} from '../../src/domains/custom-domains.js'
import { LocalClusterEvents } from '../../src/cluster/cluster-events.js'
import { DnsVerifier } from '../../src/domains/dns-verifier.js'
import { HttpError } from '../../src/http/http-error.js'
import type { PlanId } from '../../src/plans.js'
import { CustomDomainStore, type CustomDomain } from '../../src/store/custom-domain-store.js'
import { openStore } from '../../src/store/open-store.js'
import { StoreError, type StoreErrorCode } from '../../src/store/store-error.js'
import type { Account, Store } from '../../src/store/store.js'
import { testBackends, type TestDatabase } from '../helpers/test-databases.js'

const ZONE = 'tunnels.example.com'

async function rejectsWith(promise: Promise<unknown>, code: StoreErrorCode, pattern: RegExp) {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof StoreError, String(error))
    assert.equal(error.code, code, error.message)
    assert.match(error.message, pattern)
    return true
  })
}

for (const backend of testBackends()) {
  describe(`custom domains (${backend.name})`, () => {
    let dns: DnsServer
    let database: TestDatabase
    let store: Store
    let domains: CustomDomains
    let clock: Date
    let pro: Account
    let proTunnel: string

    before(async () => {
      dns = await startDnsServer()
    })
    after(async () => dns.close())

    beforeEach(async () => {
      dns.records.clear()
      clock = new Date('2026-05-01T10:00:00.000Z')
      database = await backend.create()
      store = await openStore(database.config, { now: () => clock })
      domains = new CustomDomains({
        store: new CustomDomainStore(store.db, () => clock),
        verifier: new DnsVerifier({ servers: [dns.address], timeoutMs: 1000 }),
        zone: ZONE,
        planOf: async (label) => {
          const [sub, slug] = label.split('--') as [string, string]
          return (await store.findTunnelByHost(sub, slug))?.plan ?? null
        },
        log: silentLogger,
        now: () => clock,
      })
      pro = await store.createAccount({ email: 'p@example.com', slug: 'acme', plan: 'pro' })
      proTunnel = (await store.createTunnel({ accountId: pro.id, name: 'files' })).tunnel.id
    })
    afterEach(async () => {
      await store.close()
      await database.drop()
    })

    /** Publish the records `d` asks for, pointing at its tunnel host. */
    function publish(d: CustomDomain, label = 'files--acme'): void {
      dns.records.set(`_burrow-challenge.${d.domain}`, [{ type: 'TXT', data: d.token }])
      dns.records.set(d.domain, [{ type: 'CNAME', domain: `${label}.${ZONE}` }])
    }

    async function setPlan(account: Account, plan: PlanId): Promise<void> {
      await store.db.updateTable('accounts').set({ plan }).where('id', '=', account.id).execute()
    }

    it('verifies a domain by DNS, then routes it and lets Caddy issue its certificate', async () => {
      const d = await domains.add(pro.id, proTunnel, ' MCP.Example.org. ')
      assert.equal(d.domain, 'mcp.example.org')
      assert.equal(d.state, 'pending')
      assert.match(d.token, /^burrow-verify-[0-9a-f]{32}$/)
      assert.deepEqual(domains.records(d, 'files', 'acme'), [
        { type: 'TXT', name: '_burrow-challenge.mcp.example.org', value: d.token },
        { type: 'CNAME', name: 'mcp.example.org', value: `files--acme.${ZONE}` },
      ])
      // Added but not verified: routing knows it only as pending; no certificate.
      assert.equal(await domains.route('mcp.example.org'), 'pending')
      assert.equal(await domains.mayIssue('mcp.example.org'), false)

      const before = await domains.checkNow(d)
      assert.equal(before.domain.state, 'pending')
      assert.match(
        before.domain.problem ?? '',
        /no TXT record at _burrow-challenge\.mcp\.example\.org/,
      )

      publish(d)
      const after = await domains.checkNow(d)
      assert.equal(after.domain.state, 'verified')
      assert.equal(after.domain.problem, null)
      assert.deepEqual(after.domain.verifiedAt, clock)
      const route = await domains.route('mcp.example.org')
      assert.ok(route !== null && route !== 'pending')
      assert.equal(route.label, tunnelHostLabel('files', 'acme'))
      assert.equal(await domains.mayIssue('MCP.example.org.'), true)
      // Names that are not custom domains are never looked up.
      assert.equal(await domains.mayIssue(ZONE), false)
      assert.equal(await domains.mayIssue(`files--acme.${ZONE}`), false)
      assert.equal(await domains.mayIssue('other.example.org'), false)

      // Removal stops routing and issuing at once.
      assert.equal(await domains.remove(pro.id, proTunnel, 'mcp.example.org'), true)
      assert.equal(await domains.route('mcp.example.org'), null)
      assert.equal(await domains.mayIssue('mcp.example.org'), false)
      assert.equal(await domains.remove(pro.id, proTunnel, 'mcp.example.org'), false)
    })

    it('tells other nodes when a domain changes, so none routes a removed one from its cache', async () => {
      const events = new LocalClusterEvents()
      const node = (onChange?: () => void) =>
        new CustomDomains({
          store: new CustomDomainStore(store.db, () => clock),
          verifier: new DnsVerifier({ servers: [dns.address], timeoutMs: 1000 }),
          zone: ZONE,
          planOf: async () => 'pro',
          log: silentLogger,
          now: () => clock,
          ...(onChange ? { onChange } : {}),
        })
      const here = node(() => events.publish({ type: 'domains' }))
      const there = node()
      events.subscribe((e) => {
        if (e.type === 'domains') there.invalidate()
      })
      const d = await here.add(pro.id, proTunnel, 'cached.example.org')
      publish(d)
      await here.checkNow(d)
      const route = await there.route('cached.example.org')
      assert.ok(route !== null && route !== 'pending', 'the other node routes it (and caches that)')
      assert.equal(await here.remove(pro.id, proTunnel, 'cached.example.org'), true)
      assert.equal(await there.route('cached.example.org'), null)
    })

    it('refuses every name that cannot be a custom domain, saying why', async () => {
      const cases: [string, RegExp][] = [
        ['', /enter a domain/],
        ['*.example.org', /wildcard/],
        ['mcp.*.example.org', /wildcard/],
        [ZONE, /service's own zone/],
        [`evil.${ZONE}`, /service's own zone/],
        ['https://mcp.example.org/mcp', /without a scheme/],
        ['192.0.2.1', /IP address/],
        ['localhost', /at least two labels/],
        ['p\u0430ypal.com', /mixes Latin and Cyrillic/],
        ['xn--80ak6aa92e.com', /imitate Latin/],
        [`${'a'.repeat(64)}.example.org`, /not a valid DNS label/],
      ]
      for (const [input, reason] of cases) {
        await rejectsWith(domains.add(pro.id, proTunnel, input), 'invalid', reason)
      }
      await rejectsWith(domains.add(pro.id, proTunnel, 'x'.repeat(5000)), 'invalid', /domain name/)
      await rejectsWith(domains.add(pro.id, proTunnel, 42), 'invalid', /domain name/)
      assert.deepEqual(await new CustomDomainStore(store.db).list(pro.id, proTunnel), [])
    })

    it('tells other nodes of a removal only when a domain was removed', async () => {
      // Each change told makes every node forget its routes and check every open stream again:
      // a removal of a domain the tunnel does not have, repeated, made all of them do so each time.
      let told = 0
      const counted = new CustomDomains({
        store: new CustomDomainStore(store.db, () => clock),
        verifier: new DnsVerifier({ servers: [dns.address], timeoutMs: 1000 }),
        zone: ZONE,
        planOf: async () => 'pro',
        log: silentLogger,
        now: () => clock,
        onChange: () => told++,
      })
      for (let i = 0; i < 5; i++) {
        assert.equal(await counted.remove(pro.id, proTunnel, 'never-added.example.org'), false)
      }
      assert.equal(told, 0)
      await counted.add(pro.id, proTunnel, 'mcp.example.org')
      assert.equal(told, 1)
      assert.equal(await counted.remove(pro.id, proTunnel, 'mcp.example.org'), true)
      assert.equal(told, 2)
    })

    it('holds the plan: none on Free, one on Pro, one per tunnel on Scale', async () => {
      const free = await store.createAccount({ email: 'f@example.com', slug: 'freebie' })
      const freeTunnel = (await store.createTunnel({ accountId: free.id })).tunnel.id
      await rejectsWith(
        domains.add(free.id, freeTunnel, 'mcp.free.org'),
        'plan_limit',
        /Pro or Scale/,
      )

      await domains.add(pro.id, proTunnel, 'one.example.org')
      await rejectsWith(
        domains.add(pro.id, proTunnel, 'two.example.org'),
        'conflict',
        /already has the custom domain one\.example\.org/,
      )
      const second = (await store.createTunnel({ accountId: pro.id, name: 'wiki' })).tunnel.id
      await rejectsWith(
        domains.add(pro.id, second, 'two.example.org'),
        'plan_limit',
        /Pro plan allows 1 custom domain/,
      )

      const scale = await store.createAccount({
        email: 's@example.com',
        slug: 'big',
        plan: 'scale',
      })
      const tunnels = await Promise.all(
        ['a', 'b', 'c'].map(
          async (n) => (await store.createTunnel({ accountId: scale.id, name: n })).tunnel.id,
        ),
      )
      // Concurrent adds on Scale's tunnels each succeed once; the same name twice in one account does not.
      const added = await Promise.all(
        tunnels.map((t, i) => domains.add(scale.id, t, `s${i}.example.net`)),
      )
      assert.equal(added.length, 3)
      await rejectsWith(
        domains.add(
          scale.id,
          (await store.createTunnel({ accountId: scale.id })).tunnel.id,
          's0.example.net',
        ),
        'conflict',
        /already added to another tunnel/,
      )
      // Another account's tunnel is unknown.
      await rejectsWith(
        domains.add(pro.id, tunnels[0]!, 'x.example.net'),
        'not_found',
        /no such tunnel/,
      )
    })

    it('lets an account add at most DOMAINS_ADDED_PER_DAY domains a day, removed or not', async () => {
      // Each new name verified is a certificate order at the CA, whose limits every customer shares.
      for (let i = 0; i < DOMAINS_ADDED_PER_DAY; i++) {
        const d = await domains.add(pro.id, proTunnel, `n${i}.example.org`)
        assert.equal(await domains.remove(pro.id, proTunnel, d.domain), true)
      }
      const refused = await domains.add(pro.id, proTunnel, 'more.example.org').then(
        () => null,
        (err: unknown) => err,
      )
      assert.ok(refused instanceof HttpError, String(refused))
      assert.equal(refused.status, 429)
      assert.equal(refused.code, 'rate_limited')
      assert.match(refused.message, /added 10 domains in the last day; try again in \d+ minutes/)
      // A refused name or a plan's refusal spends nothing; the allowance refills over the day.
      clock = new Date(clock.getTime() + (24 * 60 * 60_000) / DOMAINS_ADDED_PER_DAY)
      await domains.add(pro.id, proTunnel, 'more.example.org')
      // Another account has its own.
      const other = await store.createAccount({
        email: 'o@example.com',
        slug: 'other',
        plan: 'pro',
      })
      const otherTunnel = (await store.createTunnel({ accountId: other.id })).tunnel.id
      await domains.add(other.id, otherTunnel, 'other.example.org')
    })

    it('lets adds that race spend the day’s allowance once each', async () => {
      // Scale carries a domain per tunnel: 12 adds at once, each on its own tunnel, all passed
      // a check made before any of them was counted.
      await setPlan(pro, 'scale')
      const tunnels = [proTunnel]
      for (let i = 1; i < DOMAINS_ADDED_PER_DAY + 2; i++)
        tunnels.push((await store.createTunnel({ accountId: pro.id, name: `t${i}` })).tunnel.id)
      const results = await Promise.allSettled(
        tunnels.map((t, i) => domains.add(pro.id, t, `race${i}.example.org`)),
      )
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, DOMAINS_ADDED_PER_DAY)
      for (const r of results) {
        if (r.status === 'rejected') assert.equal((r.reason as HttpError).status, 429)
      }
      assert.equal(
        (await new CustomDomainStore(store.db).listAccount(pro.id)).length,
        DOMAINS_ADDED_PER_DAY,
      )
      // An add the store refuses gives its place back.
      clock = new Date(clock.getTime() + (24 * 60 * 60_000) / DOMAINS_ADDED_PER_DAY)
      await rejectsWith(domains.add(pro.id, proTunnel, 'again.example.org'), 'conflict', /already/)
      const [gone] = await new CustomDomainStore(store.db).listAccount(pro.id)
      assert.ok(gone)
      await domains.remove(pro.id, gone.tunnelId, gone.domain)
      await domains.add(pro.id, gone.tunnelId, 'again.example.org')
    })

    it('lets Pro add only one domain even when adds race', async () => {
      const tunnels = [proTunnel]
      for (const n of ['b', 'c', 'd'])
        tunnels.push((await store.createTunnel({ accountId: pro.id, name: n })).tunnel.id)
      const results = await Promise.allSettled(
        tunnels.map((t, i) => domains.add(pro.id, t, `r${i}.example.org`)),
      )
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1)
    })

    it('never lets another account take a verified domain', async () => {
      const d = await domains.add(pro.id, proTunnel, 'mcp.example.org')
      const rival = await store.createAccount({
        email: 'r@example.com',
        slug: 'rival',
        plan: 'pro',
      })
      const rivalTunnel = (await store.createTunnel({ accountId: rival.id, name: 'files' })).tunnel
        .id
      // While pending, a second claim is allowed: DNS decides who owns it.
      const theirs = await domains.add(rival.id, rivalTunnel, 'mcp.example.org')
      publish(d)
      assert.equal((await domains.checkNow(d)).domain.state, 'verified')
      // The rival cannot verify (its token is not published, and the domain is taken anyway)…
      dns.records.set('_burrow-challenge.mcp.example.org', [
        { type: 'TXT', data: d.token },
        { type: 'TXT', data: theirs.token },
      ])
      dns.records.set('mcp.example.org', [{ type: 'CNAME', domain: `files--rival.${ZONE}` }])
      const tried = await domains.checkNow(theirs)
      assert.equal(tried.domain.state, 'pending')
      assert.match(tried.domain.problem ?? '', /already verified by another account/)
      // …nor add it again anywhere.
      await domains.remove(rival.id, rivalTunnel, 'mcp.example.org')
      await rejectsWith(
        domains.add(rival.id, rivalTunnel, 'MCP.example.org'),
        'conflict',
        /already verified by another account/,
      )
      const route = await domains.route('mcp.example.org')
      assert.ok(route !== null && route !== 'pending')
      assert.equal(route.accountId, pro.id)
    })

    it('re-checks on its clock: vanished records lapse a verified domain after a day', async () => {
      const d = await domains.add(pro.id, proTunnel, 'mcp.example.org')
      publish(d)
      // A new domain is due at once; the round verifies it.
      assert.equal(await domains.recheck(), 1)
      assert.equal(await domains.recheck(), 0, 'nothing is due again straight away')
      assert.equal(await domains.mayIssue('mcp.example.org'), true)

      dns.records.delete('mcp.example.org')
      clock = new Date(clock.getTime() + VERIFIED_RECHECK_MS)
      assert.equal(await domains.recheck(), 1)
      const [failing] = await new CustomDomainStore(store.db).list(pro.id, proTunnel)
      assert.equal(failing?.state, 'verified', 'a DNS blip does not take the domain down')
      assert.match(failing?.problem ?? '', /does not point at the service/)
      assert.equal(await domains.mayIssue('mcp.example.org'), true)

      clock = new Date(clock.getTime() + LAPSE_AFTER_MS)
      assert.equal(await domains.recheck(), 1)
      const [lapsed] = await new CustomDomainStore(store.db).list(pro.id, proTunnel)
      assert.equal(lapsed?.state, 'pending')
      assert.equal(await domains.route('mcp.example.org'), 'pending')
      assert.equal(await domains.mayIssue('mcp.example.org'), false)

      // Records back: verified again on the next due round.
      publish(d)
      clock = new Date(clock.getTime() + VERIFIED_RECHECK_MS)
      assert.equal(await domains.recheck(), 1)
      assert.equal(await domains.mayIssue('mcp.example.org'), true)
    })

    it('asks the plan at routing time: a downgrade stops the domain, an upgrade restores it', async () => {
      const d = await domains.add(pro.id, proTunnel, 'mcp.example.org')
      publish(d)
      await domains.checkNow(d)
      const route = await domains.route('mcp.example.org')
      assert.ok(route !== null && route !== 'pending')
      assert.equal(domains.allowed(route, 'pro'), true)
      assert.equal(domains.allowed(route, 'free'), false)
      await setPlan(pro, 'free')
      assert.equal(await domains.mayIssue('mcp.example.org'), false)
      await setPlan(pro, 'scale')
      assert.equal(await domains.mayIssue('mcp.example.org'), true)
    })
  })
}
