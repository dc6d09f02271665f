/**
 * The access part of the store contract, run against SQLite always and PostgreSQL when
 * TEST_DATABASE_URL is set: tunnel access settings (default `oauth`; tunnels that existed before
 * migration 011 stay `public`), agent tokens (hashed, scoped to their tunnel, capped), and OAuth
 * grants (single-use codes even under concurrency, refresh rotation with reuse detection of any
 * replaced token, revocation that cascades with the tunnel), and the bound on clients nobody
 * approved.
 */
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { sql } from 'kysely'
import { AgentTokenStore, MAX_AGENT_TOKENS } from '../../src/store/agent-token-store.js'
import { accessMigration } from '../../src/store/migrations/011-access.js'
import { customDomainsMigration } from '../../src/store/migrations/012-custom-domains.js'
import { callContinuationsMigration } from '../../src/store/migrations/013-call-continuations.js'
import { replacedRefreshMigration } from '../../src/store/migrations/014-replaced-refresh-tokens.js'
import { oauthClientEvictionMigration } from '../../src/store/migrations/015-oauth-client-eviction.js'
import { usedOauthCodesMigration } from '../../src/store/migrations/016-used-oauth-codes.js'
import { checkoutTransactionsMigration } from '../../src/store/migrations/017-checkout-transactions.js'
import { webhookDeliveriesByAgeMigration } from '../../src/store/migrations/018-webhook-deliveries-by-age.js'
import { callHistoryWideCountsMigration } from '../../src/store/migrations/019-call-history-wide-counts.js'
import { releasedTunnelsMigration } from '../../src/store/migrations/020-released-tunnels.js'
import { canonicalEmailsMigration } from '../../src/store/migrations/021-canonical-emails.js'
import { webhookSecretRotationMigration } from '../../src/store/migrations/022-webhook-secret-rotation.js'
import { callHistoryByIdMigration } from '../../src/store/migrations/023-call-history-by-id.js'
import { billingMicrosecondsMigration } from '../../src/store/migrations/024-billing-microseconds.js'
import { billingHistoryMigration } from '../../src/store/migrations/025-billing-history.js'
import { webhookPostponementsMigration } from '../../src/store/migrations/026-webhook-postponements.js'
import { migrateToLatest } from '../../src/store/migrations/migrate-to-latest.js'
import { OauthClientStore } from '../../src/store/oauth-client-store.js'
import { MAX_GRANTS_PER_TUNNEL, OauthGrantStore } from '../../src/store/oauth-grant-store.js'
import { ClientRegistry } from '../../src/access/oauth/client-registry.js'
import { UrlGuard } from '../../src/webhooks/url-guard.js'
import { openStore } from '../../src/store/open-store.js'
import { StoreError } from '../../src/store/store-error.js'
import type { Store } from '../../src/store/store.js'
import { TunnelAccessStore } from '../../src/store/tunnel-access-store.js'
import { testBackends } from '../helpers/test-databases.js'
import type { TestDatabase } from '../helpers/test-databases.js'

const hash = (s: string) => createHash('sha256').update(s).digest('hex')

for (const backend of testBackends()) {
  describe(`access stores on ${backend.name}`, () => {
    let database: TestDatabase
    let store: Store
    let clock: number
    let accountId: string
    let tunnelA: string
    let tunnelB: string

    /** Approve `clientId` on tunnel A for resource `r`, with code `code` (stored hashed). */
    const approveOn = (grants: OauthGrantStore, code: string, clientId = 'dcr_x') =>
      grants.approve({
        tunnelId: tunnelA,
        accountId,
        clientId,
        clientName: clientId,
        approvedBy: 'a@example.com',
        resource: 'r',
        codeHash: hash(code),
        redirectUri: 'http://127.0.0.1/cb',
        codeChallenge: 'c'.repeat(43),
        codeExpiresAt: new Date(clock + 60_000),
      })

    beforeEach(async () => {
      clock = Date.parse('2026-11-25T10:00:00.000Z')
      database = await backend.create()
      store = await openStore(database.config, { now: () => new Date(clock) })
      accountId = (await store.createAccount({ email: 'a@example.com', slug: 'acme' })).id
      tunnelA = (await store.createTunnel({ accountId, name: 'a' })).tunnel.id
      tunnelB = (await store.createTunnel({ accountId, name: 'b' })).tunnel.id
    })

    afterEach(async () => {
      await store.close()
      await database.drop()
    })

    it('answers oauth for tunnels without settings, stores and replaces them', async () => {
      const settings = new TunnelAccessStore(store.db)
      assert.deepEqual(await settings.get(tunnelA), { mode: 'oauth', allowIps: [] })
      await settings.set(tunnelA, { mode: 'token', allowIps: ['10.0.0.0/8'] })
      await settings.set(tunnelA, { mode: 'public', allowIps: [] })
      assert.deepEqual(await settings.get(tunnelA), { mode: 'public', allowIps: [] })
      assert.deepEqual(await settings.get(tunnelB), { mode: 'oauth', allowIps: [] })
      // An unknown stored mode (a newer burrowd's) is read as the safest.
      await store.db.updateTable('tunnel_access').set({ mode: 'later' }).execute()
      assert.equal((await settings.get(tunnelA)).mode, 'oauth')
    })

    it('keeps tunnels that existed before migration 011 public', async () => {
      // Back to a database of migration 010 (the later migrations undone, newest first).
      const later = [
        ['026_webhook_postponements', webhookPostponementsMigration],
        ['025_billing_history', billingHistoryMigration],
        ['024_billing_microseconds', billingMicrosecondsMigration],
        ['023_call_history_by_id', callHistoryByIdMigration],
        ['022_webhook_secret_rotation', webhookSecretRotationMigration],
        ['021_canonical_emails', canonicalEmailsMigration],
        ['020_released_tunnels', releasedTunnelsMigration],
        ['019_call_history_wide_counts', callHistoryWideCountsMigration],
        ['018_webhook_deliveries_by_age', webhookDeliveriesByAgeMigration],
        ['017_checkout_transactions', checkoutTransactionsMigration],
        ['016_used_oauth_codes', usedOauthCodesMigration],
        ['015_oauth_client_eviction', oauthClientEvictionMigration],
        ['014_replaced_refresh_tokens', replacedRefreshMigration],
        ['013_call_continuations', callContinuationsMigration],
        ['012_custom_domains', customDomainsMigration],
        ['011_access', accessMigration],
      ] as const
      for (const [name, migration] of later) {
        await migration.down!(store.db)
        await sql`delete from kysely_migration where name = ${name}`.execute(store.db)
      }
      assert.deepEqual(await migrateToLatest(store.db), later.map(([name]) => name).reverse())
      const settings = new TunnelAccessStore(store.db)
      assert.equal((await settings.get(tunnelA)).mode, 'public')
      assert.equal((await settings.get(tunnelB)).mode, 'public')
      const made = (await store.createTunnel({ accountId, name: 'c' })).tunnel.id
      assert.equal((await settings.get(made)).mode, 'oauth')
    })

    it('authenticates agent tokens of their own tunnel only, stored as hashes', async () => {
      const tokens = new AgentTokenStore(store.db, () => new Date(clock))
      const { token, secret } = await tokens.create(tunnelA, ' ci ')
      assert.equal(token.name, 'ci')
      assert.match(secret, /^atk_[A-Za-z0-9_-]{43}$/)
      const rows = await store.db.selectFrom('agent_tokens').selectAll().execute()
      assert.equal(rows[0]!.token_hash, hash(secret))
      assert.ok(!JSON.stringify(rows).includes(secret))
      assert.equal((await tokens.authenticate(tunnelA, secret))?.id, token.id)
      assert.equal(await tokens.authenticate(tunnelB, secret), undefined)
      assert.equal(await tokens.authenticate(tunnelA, secret + 'x'), undefined)
      assert.equal((await tokens.list(tunnelA))[0]?.lastUsedAt?.getTime(), clock)
      assert.equal(await tokens.revoke(tunnelB, token.id), false)
      assert.equal(await tokens.revoke(tunnelA, token.id), true)
      assert.equal(await tokens.authenticate(tunnelA, secret), undefined)
      await assert.rejects(tokens.create(tunnelA, ''), StoreError)
    })

    it("ends every agent token and grant of one tunnel at once, and only that tunnel's", async () => {
      const tokens = new AgentTokenStore(store.db, () => new Date(clock))
      const grants = new OauthGrantStore(store.db, () => new Date(clock))
      const a1 = await tokens.create(tunnelA, 'one')
      await tokens.create(tunnelA, 'two')
      const b = await tokens.create(tunnelB, 'other')
      const connected = await approveOn(grants, 'connected')
      await grants.setRefresh(connected, hash('r'), new Date(clock + 86_400_000))
      const waiting = await approveOn(grants, 'waiting')
      const onB = await grants.approve({
        tunnelId: tunnelB,
        accountId,
        clientId: 'dcr_b',
        clientName: 'B',
        approvedBy: 'a@example.com',
        resource: 'r',
        codeHash: hash('on-b'),
        redirectUri: 'http://127.0.0.1/cb',
        codeChallenge: 'c'.repeat(43),
        codeExpiresAt: new Date(clock + 60_000),
      })
      assert.equal(await tokens.revokeAll(tunnelA), 2)
      assert.equal(await grants.revokeAll(tunnelA), 2)
      assert.equal(await tokens.authenticate(tunnelA, a1.secret), undefined)
      assert.equal(await grants.get(connected), undefined)
      assert.equal(await grants.get(waiting), undefined)
      assert.equal(await grants.takeCode(hash('waiting')), undefined, 'its code went with it')
      assert.equal((await tokens.authenticate(tunnelB, b.secret))?.id, b.token.id)
      assert.ok(await grants.get(onB))
      assert.equal(await tokens.revokeAll(tunnelA), 0)
    })

    it(`caps a tunnel at ${MAX_AGENT_TOKENS} agent tokens`, async () => {
      const tokens = new AgentTokenStore(store.db)
      for (let i = 0; i < MAX_AGENT_TOKENS; i++) await tokens.create(tunnelA, `t${i}`)
      await assert.rejects(tokens.create(tunnelA, 'one more'), /at most 50 agent tokens/)
      await tokens.create(tunnelB, 'other tunnel')
    })

    it('holds the agent-token cap when twenty creates come at once, and refuses an unknown tunnel', async () => {
      const tokens = new AgentTokenStore(store.db)
      for (let i = 0; i < MAX_AGENT_TOKENS - 5; i++) await tokens.create(tunnelA, `t${i}`)
      const outcomes = await Promise.allSettled(
        Array.from({ length: 20 }, (_, i) => tokens.create(tunnelA, `at once ${i}`)),
      )
      assert.equal(outcomes.filter((o) => o.status === 'fulfilled').length, 5)
      for (const o of outcomes) {
        if (o.status === 'rejected') assert.match(String(o.reason), /at most 50 agent tokens/)
      }
      assert.equal((await tokens.list(tunnelA)).length, MAX_AGENT_TOKENS)
      await assert.rejects(
        tokens.create('tun_nope', 'x'),
        (e: unknown) => e instanceof StoreError && e.code === 'not_found',
      )
    })

    it('redeems a code once, even when two redeem it at the same time', async () => {
      const grants = new OauthGrantStore(store.db, () => new Date(clock))
      const grantId = await grants.approve({
        tunnelId: tunnelA,
        accountId,
        clientId: 'dcr_x',
        clientName: 'X',
        approvedBy: 'a@example.com',
        resource: 'http://a--acme.localhost/mcp',
        codeHash: hash('code'),
        redirectUri: 'http://127.0.0.1/cb',
        codeChallenge: 'c'.repeat(43),
        codeExpiresAt: new Date(clock + 60_000),
      })
      assert.deepEqual(await grants.list(tunnelA), [], 'not connected until redeemed')
      const taken = await Promise.all([
        grants.takeCode(hash('code')),
        grants.takeCode(hash('code')),
      ])
      assert.equal(taken.filter((t) => t !== undefined && 'grant' in t).length, 1)
      // The other taker, like any later one, is told the code was used, and whose it is.
      assert.deepEqual(
        taken.find((t) => t !== undefined && 'replayedGrantId' in t),
        { replayedGrantId: grantId },
      )
      assert.deepEqual(await grants.takeCode(hash('code')), { replayedGrantId: grantId })
      assert.equal(await grants.takeCode(hash('never-issued')), undefined)
      await grants.setRefresh(grantId, hash('r1'), new Date(clock + 86_400_000))
      assert.equal((await grants.list(tunnelA)).length, 1)

      const rotated = await Promise.all([
        grants.rotateRefresh(hash('r1'), hash('r2'), new Date(clock + 86_400_000)),
        grants.rotateRefresh(hash('r1'), hash('r2b'), new Date(clock + 86_400_000)),
      ])
      // One rotation wins; the other presented a token that was just replaced: the grant ends.
      assert.equal(rotated.filter((r) => typeof r === 'object').length, 1)
      assert.equal(await grants.get(grantId), undefined)
    })

    it('refreshes again as it did when the same token comes back with the same successor within the grace', async () => {
      const grants = new OauthGrantStore(store.db, () => new Date(clock))
      const day = 86_400_000
      const approve = async (code: string) => {
        const id = await approveOn(grants, code)
        await grants.setRefresh(id, hash(`${code}-r1`), new Date(clock + day))
        return id
      }
      const rotate = (from: string, to: string) =>
        grants.rotateRefresh(hash(from), hash(to), new Date(clock + day), 30_000)

      // Parallel calls of one client refresh with r1 at once: the same successor, the same grant.
      const id = await approve('par')
      const both = await Promise.all([rotate('par-r1', 'par-r2'), rotate('par-r1', 'par-r2')])
      assert.deepEqual(
        both.map((g) => typeof g === 'object' && g.id),
        [id, id],
      )
      clock += 29_000
      assert.equal(((await rotate('par-r1', 'par-r2')) as { id: string }).id, id)
      assert.equal((await grants.byRefresh(hash('par-r2')))?.id, id, 'r2 is still the token')

      // Another successor, or the grace over, is a replay: the grant ends.
      const other = await approve('other')
      await rotate('other-r1', 'other-r2')
      assert.equal(await rotate('other-r1', 'other-r2b'), 'reused')
      assert.equal(await grants.get(other), undefined)
      clock += 2_000
      assert.equal(await rotate('par-r1', 'par-r2'), 'reused')
      assert.equal(await grants.get(id), undefined)

      // Once r2 was replaced in turn, r1 coming back is a replay however soon.
      const next = await approve('next')
      await rotate('next-r1', 'next-r2')
      await rotate('next-r2', 'next-r3')
      assert.equal(await rotate('next-r1', 'next-r2'), 'reused')
      assert.equal(await grants.get(next), undefined)
    })

    it('revokes a grant when any refresh token it replaced comes back, not only the last one', async () => {
      const grants = new OauthGrantStore(store.db, () => new Date(clock))
      const approve = async (code: string) => {
        const id = await approveOn(grants, code)
        await grants.setRefresh(id, hash(`${code}-r1`), new Date(clock + 86_400_000))
        return id
      }
      // A thief refreshes twice with a stolen r1; the owner's r1 then comes back.
      const stolen = await approve('stolen')
      for (const [from, to] of [
        ['stolen-r1', 'stolen-r2'],
        ['stolen-r2', 'stolen-r3'],
      ]) {
        clock += 1_000
        const next = await grants.rotateRefresh(
          hash(from!),
          hash(to!),
          new Date(clock + 86_400_000),
        )
        assert.equal(typeof next, 'object')
      }
      assert.equal((await grants.byRefresh(hash('stolen-r3')))?.id, stolen)
      assert.equal(await grants.byRefresh(hash('stolen-r1')), undefined)
      assert.equal(
        await grants.rotateRefresh(hash('stolen-r1'), hash('x'), new Date(clock + 86_400_000)),
        'reused',
      )
      assert.equal(await grants.get(stolen), undefined, "the thief's r3 ends with the grant")
      const left = await store.db.selectFrom('oauth_replaced_refresh').selectAll().execute()
      assert.deepEqual(left, [], 'replaced tokens go with their grant')

      // Replaced tokens are remembered until they would have expired, then forgotten.
      const kept = await approve('kept')
      await grants.rotateRefresh(hash('kept-r1'), hash('kept-r2'), new Date(clock + 1_000))
      clock += 2_000
      await grants.setRefresh(kept, hash('kept-r3'), new Date(clock + 86_400_000))
      await grants.rotateRefresh(hash('kept-r3'), hash('kept-r4'), new Date(clock + 86_400_000))
      const rows = await store.db
        .selectFrom('oauth_replaced_refresh')
        .select('refresh_hash')
        .execute()
      assert.deepEqual(
        rows.map((r) => r.refresh_hash),
        [hash('kept-r3')],
      )
      assert.equal(
        await grants.rotateRefresh(hash('kept-r1'), hash('y'), new Date(clock + 86_400_000)),
        undefined,
        'a replaced token past its expiry is only unknown',
      )
      assert.ok(await grants.get(kept))
    })

    it('carries the replaced refresh token 011 kept into migration 014', async () => {
      const grants = new OauthGrantStore(store.db, () => new Date(clock))
      for (const [name, migration] of [
        ['026_webhook_postponements', webhookPostponementsMigration],
        ['025_billing_history', billingHistoryMigration],
        ['024_billing_microseconds', billingMicrosecondsMigration],
        ['023_call_history_by_id', callHistoryByIdMigration],
        ['022_webhook_secret_rotation', webhookSecretRotationMigration],
        ['021_canonical_emails', canonicalEmailsMigration],
        ['020_released_tunnels', releasedTunnelsMigration],
        ['019_call_history_wide_counts', callHistoryWideCountsMigration],
        ['018_webhook_deliveries_by_age', webhookDeliveriesByAgeMigration],
        ['017_checkout_transactions', checkoutTransactionsMigration],
        ['016_used_oauth_codes', usedOauthCodesMigration],
        ['015_oauth_client_eviction', oauthClientEvictionMigration],
        ['014_replaced_refresh_tokens', replacedRefreshMigration],
      ] as const) {
        await migration.down!(store.db)
        await sql`delete from kysely_migration where name = ${name}`.execute(store.db)
      }
      const id = await approveOn(grants, 'old-code')
      await store.db
        .updateTable('oauth_grants')
        .set({
          refresh_hash: hash('old-r2'),
          previous_refresh_hash: hash('old-r1'),
          refresh_expires_at: new Date(clock + 86_400_000).toISOString(),
        })
        .where('id', '=', id)
        .execute()
      assert.deepEqual(await migrateToLatest(store.db), [
        '014_replaced_refresh_tokens',
        '015_oauth_client_eviction',
        '016_used_oauth_codes',
        '017_checkout_transactions',
        '018_webhook_deliveries_by_age',
        '019_call_history_wide_counts',
        '020_released_tunnels',
        '021_canonical_emails',
        '022_webhook_secret_rotation',
        '023_call_history_by_id',
        '024_billing_microseconds',
        '025_billing_history',
        '026_webhook_postponements',
      ])
      assert.equal(
        await grants.rotateRefresh(hash('old-r1'), hash('x'), new Date(clock + 86_400_000)),
        'reused',
      )
      assert.equal(await grants.get(id), undefined)
    })

    it('keeps the newest clients nobody approved within a bound, and every approved one', async () => {
      const clients = new OauthClientStore(store.db)
      const registry = new ClientRegistry(
        clients,
        new UrlGuard({ allowPrivate: false }),
        () => new Date(clock),
      )
      const made: string[] = []
      for (let i = 0; i < 5; i++) {
        clock += 1_000
        const client = await registry.register({
          client_name: `client ${i}`,
          redirect_uris: ['http://127.0.0.1/cb'],
          token_endpoint_auth_method: 'none',
          padding: 'x'.repeat(10_000),
        })
        made.push(client.clientId)
      }
      // What is stored is what burrowd honours, not the body a stranger sent.
      const row = await store.db
        .selectFrom('oauth_clients')
        .select('document')
        .where('client_id', '=', made[0]!)
        .executeTakeFirstOrThrow()
      assert.deepEqual(JSON.parse(row.document), {
        client_name: 'client 0',
        redirect_uris: ['http://127.0.0.1/cb'],
      })
      // The oldest is approved: it stays whatever comes after it.
      const grants = new OauthGrantStore(store.db, () => new Date(clock))
      await approveOn(grants, 'evict-code', made[0])
      assert.equal(await clients.evict(2), 2)
      const left = await store.db.selectFrom('oauth_clients').select('client_id').execute()
      assert.deepEqual(left.map((r) => r.client_id).sort(), [made[0], made[3], made[4]].sort())
      assert.equal(await clients.evict(2), 0)
      await assert.rejects(registry.find(made[1]!), /unknown client_id; register the client first/)
      assert.equal((await registry.find(made[4]!)).name, 'client 4')
    })

    it(`caps a tunnel at ${MAX_GRANTS_PER_TUNNEL} grants, after clearing the dead ones`, async () => {
      const grants = new OauthGrantStore(store.db, () => new Date(clock))
      const count = async (tunnelId: string) =>
        (
          await store.db
            .selectFrom('oauth_grants')
            .where('tunnel_id', '=', tunnelId)
            .selectAll()
            .execute()
        ).length
      const onB = await grants.approve({
        tunnelId: tunnelB,
        accountId,
        clientId: 'dcr_b',
        clientName: 'b',
        approvedBy: 'a@example.com',
        resource: 'rb',
        codeHash: hash('on-b'),
        redirectUri: 'http://127.0.0.1/cb',
        codeChallenge: 'c'.repeat(43),
        codeExpiresAt: new Date(clock + 60_000),
      })
      const kept = await approveOn(grants, 'kept')
      await grants.setRefresh(kept, hash('kept-r1'), new Date(clock + 3_600_000))
      for (let i = 1; i < MAX_GRANTS_PER_TUNNEL; i++) await approveOn(grants, `code-${i}`)
      await assert.rejects(
        approveOn(grants, 'one-too-many'),
        (err: unknown) =>
          err instanceof StoreError && err.code === 'conflict' && /Access tab/.test(err.message),
      )
      assert.equal(await count(tunnelA), MAX_GRANTS_PER_TUNNEL)
      // A minute after their codes expired unredeemed, those approvals are dead: the next one
      // clears them (a redemption that took a code just before it expired completes meanwhile).
      clock += 60_000
      await assert.rejects(approveOn(grants, 'at-expiry'), StoreError)
      clock += 61_000
      await approveOn(grants, 'after-expiry')
      assert.equal(await count(tunnelA), 2)
      assert.ok(await grants.get(kept), 'a redeemed grant stays')
      assert.equal(
        (await store.db.selectFrom('oauth_codes').selectAll().execute()).length,
        3,
        'their codes went with them',
      )
      assert.ok(await grants.get(onB), "another tunnel's are left to its own approvals")
      // A grant whose refresh token expired hours ago gave its last access token out long before.
      clock += 3_600_000 + 2 * 3_600_000
      await approveOn(grants, 'later')
      assert.equal(await grants.get(kept), undefined)
      assert.equal(await count(tunnelA), 1)
    })

    it('refuses expired refresh tokens and revokes a grant whose old refresh token comes back', async () => {
      const grants = new OauthGrantStore(store.db, () => new Date(clock))
      const approve = async (code: string) => {
        const id = await approveOn(grants, code)
        await grants.setRefresh(id, hash(`${code}-r1`), new Date(clock + 1_000))
        return id
      }
      const first = await approve('one')
      assert.equal(
        typeof (await grants.rotateRefresh(
          hash('one-r1'),
          hash('one-r2'),
          new Date(clock + 1_000),
        )),
        'object',
      )
      assert.equal(
        await grants.rotateRefresh(hash('one-r1'), hash('one-r3'), new Date(clock + 1_000)),
        'reused',
      )
      assert.equal(await grants.get(first), undefined)

      const second = await approve('two')
      clock += 2_000
      assert.equal(
        await grants.rotateRefresh(hash('two-r1'), hash('two-r2'), new Date(clock + 1_000)),
        undefined,
      )
      assert.ok(await grants.get(second))
      // Deleting the tunnel takes its grants and codes with it.
      await store.deleteTunnel(accountId, tunnelA)
      assert.equal(await grants.get(second), undefined)
      assert.equal((await store.db.selectFrom('oauth_codes').selectAll().execute()).length, 0)
    })
  })
}
