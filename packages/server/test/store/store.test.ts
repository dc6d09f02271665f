/**
 * The store contract: one suite of behaviours every backend must show, run against SQLite
 * always and against PostgreSQL when TEST_DATABASE_URL is set. Each test gets a fresh database.
 */

import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { DatabaseUnavailableError } from '../../src/store/database-unavailable-error.js'
import { migrateToLatest } from '../../src/store/migrations/migrate-to-latest.js'
import { openStore } from '../../src/store/open-store.js'
import { StoreError } from '../../src/store/store-error.js'
import type { StoreErrorCode } from '../../src/store/store-error.js'
import type { Store } from '../../src/store/store.js'
import { testBackends } from '../helpers/test-databases.js'
import type { TestDatabase } from '../helpers/test-databases.js'

const NOW = new Date('2026-03-04T05:06:07.089Z')
const KEY = /^mtk_[A-Za-z0-9_-]{43}$/
const RANDOM_SUBDOMAIN = /^[a-z][a-z0-9]{7}$/

/** Assert that `promise` rejects with a StoreError of `code` whose message contains `fragment`. */
async function rejectsWith(
  promise: Promise<unknown>,
  code: StoreErrorCode,
  fragment: string,
): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof StoreError, `expected StoreError, got ${String(error)}`)
    assert.equal(error.code, code)
    assert.ok(error.message.includes(fragment), `"${error.message}" lacks "${fragment}"`)
    return true
  })
}

for (const backend of testBackends()) {
  describe(`Store contract on ${backend.name}`, () => {
    let database: TestDatabase
    let store: Store
    let clock: Date

    beforeEach(async () => {
      clock = NOW
      database = await backend.create()
      store = await openStore(database.config, { now: () => clock })
    })

    afterEach(async () => {
      await store.close()
      await database.drop()
    })

    describe('accounts', () => {
      it('creates an account and finds it by slug and by id', async () => {
        const account = await store.createAccount({ email: ' Ann@Example.COM ', slug: 'acme' })
        assert.match(account.id, /^acc_[0-9a-f]{20}$/)
        assert.deepEqual(account, {
          id: account.id,
          email: 'ann@example.com',
          slug: 'acme',
          plan: 'free',
          planExpiresAt: null,
          createdAt: NOW,
        })
        assert.deepEqual(await store.getAccountBySlug('acme'), account)
        assert.deepEqual(await store.getAccountById(account.id), account)
        assert.equal(await store.getAccountBySlug('other'), undefined)
        assert.equal(await store.getAccountById('acc_missing'), undefined)
      })

      it('stores the plan it is given', async () => {
        const account = await store.createAccount({ email: 'b@x.io', slug: 'big', plan: 'scale' })
        assert.equal(account.plan, 'scale')
        assert.equal((await store.getAccountBySlug('big'))?.plan, 'scale')
      })

      it('refuses a taken slug or email', async () => {
        await store.createAccount({ email: 'ann@example.com', slug: 'acme' })
        await rejectsWith(
          store.createAccount({ email: 'bob@example.com', slug: 'acme' }),
          'conflict',
          'account slug "acme" is taken',
        )
        await rejectsWith(
          store.createAccount({ email: 'ANN@example.com', slug: 'acme2' }),
          'conflict',
          'ann@example.com',
        )
        assert.equal(await store.getAccountBySlug('acme2'), undefined)
      })

      it('refuses invalid slugs, emails and plans', async () => {
        await rejectsWith(store.createAccount({ email: 'a@b.c', slug: 'Acme' }), 'invalid', 'Acme')
        await rejectsWith(store.createAccount({ email: 'a@b.c', slug: 'a--b' }), 'invalid', '--')
        await rejectsWith(store.createAccount({ email: 'a@b.c', slug: '' }), 'invalid', 'empty')
        await rejectsWith(
          store.createAccount({ email: 'a@b.c', slug: 'x'.repeat(41) }),
          'invalid',
          'longer than 40',
        )
        for (const email of [
          'nope',
          'a b@c.d',
          '@b.c',
          'a@',
          'a@b..c',
          'root,postmaster;bob@ex.test',
          'victim.example.com<attacker@evil.test>',
        ]) {
          await rejectsWith(store.createAccount({ email, slug: 'acme' }), 'invalid', email)
        }
        const plan = 'gold' as 'free'
        await rejectsWith(
          store.createAccount({ email: 'a@b.c', slug: 'acme', plan }),
          'invalid',
          'gold',
        )
      })
    })

    describe('sign-in', () => {
      it('signs in with the password given at creation, by email in any case', async () => {
        const account = await store.createAccount({
          email: 'ann@example.com',
          slug: 'acme',
          password: 'correct horse',
        })
        assert.deepEqual(await store.verifyLogin(' ANN@Example.com ', 'correct horse'), account)
        assert.equal(await store.verifyLogin('ann@example.com', 'correct horsE'), undefined)
        assert.equal(await store.verifyLogin('ann@example.com', ''), undefined)
        assert.equal(await store.verifyLogin('bob@example.com', 'correct horse'), undefined)
      })

      it('keeps only a scrypt hash of the password', async () => {
        const account = await store.createAccount({
          email: 'a@b.c',
          slug: 'acme',
          password: 'correct horse',
        })
        const row = await store.db
          .selectFrom('accounts')
          .select('password_hash')
          .where('id', '=', account.id)
          .executeTakeFirstOrThrow()
        assert.match(row.password_hash ?? '', /^scrypt\$32768\$8\$1\$/)
        assert.ok(!JSON.stringify(row).includes('correct horse'))
        assert.ok(!('passwordHash' in account) && !('password_hash' in account))
      })

      it('never signs in to an account without a password or with a malformed hash', async () => {
        const account = await store.createAccount({ email: 'a@b.c', slug: 'acme' })
        assert.equal(await store.verifyLogin('a@b.c', ''), undefined)
        assert.equal(await store.verifyLogin('a@b.c', 'anything at all'), undefined)
        for (const hash of ['', 'anything at all', 'scrypt$1$1$1$$', 'scrypt$32768$8$1$x$y']) {
          await store.db
            .updateTable('accounts')
            .set({ password_hash: hash })
            .where('id', '=', account.id)
            .execute()
          assert.equal(await store.verifyLogin('a@b.c', hash), undefined)
          assert.equal(await store.verifyLogin('a@b.c', 'anything at all'), undefined)
        }
      })

      it('refuses a password longer than any that can be set, however long', async () => {
        const long = 'xy'.repeat(100) + 'x'
        await store.createAccount({ email: 'a@b.c', slug: 'acme', password: 'xy'.repeat(100) })
        assert.equal(await store.verifyLogin('a@b.c', long), undefined)
        assert.equal(await store.verifyLogin('a@b.c', 'x'.repeat(1_000_000)), undefined)
        assert.ok(await store.verifyLogin('a@b.c', 'xy'.repeat(100)))
      })

      it('refuses passwords that are too short or too long, creating nothing', async () => {
        await rejectsWith(
          store.createAccount({ email: 'a@b.c', slug: 'acme', password: 'short' }),
          'invalid',
          'at least 8 characters',
        )
        await rejectsWith(
          store.createAccount({ email: 'a@b.c', slug: 'acme', password: 'p'.repeat(201) }),
          'invalid',
          'at most 200 characters',
        )
        assert.equal(await store.getAccountBySlug('acme'), undefined)
      })

      it('replaces a password; the old one stops working', async () => {
        const account = await store.createAccount({
          email: 'a@b.c',
          slug: 'acme',
          password: 'first password',
        })
        await store.setPassword(account.id, 'second password')
        assert.equal(await store.verifyLogin('a@b.c', 'first password'), undefined)
        assert.equal((await store.verifyLogin('a@b.c', 'second password'))?.id, account.id)
        await rejectsWith(store.setPassword(account.id, 'short'), 'invalid', 'at least 8')
        await rejectsWith(
          store.setPassword('acc_missing', 'long enough'),
          'not_found',
          'acc_missing',
        )
        assert.equal((await store.verifyLogin('a@b.c', 'second password'))?.id, account.id)
      })

      it('replaces only the password a change checked, not one a reset set meanwhile', async () => {
        const account = await store.createAccount({
          email: 'a@b.c',
          slug: 'acme',
          password: 'first password',
        })
        // A change checked "first password" (its stamp); a reset then set another one.
        const checked = await store.passwordStamp('a@b.c')
        const reset = await store.setPassword(account.id, 'the reset password')
        assert.equal(reset, await store.passwordStamp('a@b.c'))
        await rejectsWith(
          store.setPassword(account.id, 'the changed password', checked),
          'conflict',
          'changed meanwhile',
        )
        assert.equal((await store.verifyLogin('a@b.c', 'the reset password'))?.id, account.id)
        assert.equal(await store.verifyLogin('a@b.c', 'the changed password'), undefined)
        // Over the password it checked, the change is made.
        const changed = await store.setPassword(account.id, 'the changed password', reset)
        assert.equal(changed, await store.passwordStamp('a@b.c'))
        assert.equal((await store.verifyLogin('a@b.c', 'the changed password'))?.id, account.id)
      })

      it('lets an account made without a password sign in once one is set', async () => {
        const account = await store.createAccount({ email: 'a@b.c', slug: 'acme' })
        await store.setPassword(account.id, 'now I have one')
        assert.equal((await store.verifyLogin('a@b.c', 'now I have one'))?.id, account.id)
      })
    })

    describe('plan in force', () => {
      async function expireAt(accountId: string, at: Date | null): Promise<void> {
        await store.db
          .updateTable('accounts')
          .set({ plan_expires_at: at?.toISOString() ?? null })
          .where('id', '=', accountId)
          .execute()
      }

      it('keeps a cancelled paid plan until its end, then reports Free', async () => {
        const account = await store.createAccount({ email: 'a@b.c', slug: 'acme', plan: 'pro' })
        const { key } = await store.createTunnel({ accountId: account.id, subdomain: 'docs' })
        const end = new Date(NOW.getTime() + 3_600_000)
        await expireAt(account.id, end)

        clock = new Date(end.getTime() - 1)
        assert.equal((await store.getAccountById(account.id))?.plan, 'pro')
        assert.deepEqual((await store.getAccountBySlug('acme'))?.planExpiresAt, end)
        assert.equal((await store.findTunnelByKey(key))?.plan, 'pro')

        clock = end
        assert.equal((await store.getAccountById(account.id))?.plan, 'free')
        assert.equal((await store.getAccountBySlug('acme'))?.plan, 'free')
        assert.equal((await store.findTunnelByKey(key))?.plan, 'free')
        assert.equal((await store.findTunnelByHost('docs', 'acme'))?.plan, 'free')
      })

      it('reports the stored plan when no end is set', async () => {
        const account = await store.createAccount({ email: 'a@b.c', slug: 'acme', plan: 'scale' })
        clock = new Date('2099-01-01T00:00:00.000Z')
        assert.equal((await store.getAccountById(account.id))?.plan, 'scale')
      })
    })

    describe('deleting an account', () => {
      it('removes its tunnels, sessions and tokens', async () => {
        const account = await store.createAccount({ email: 'a@b.c', slug: 'acme' })
        const other = await store.createAccount({ email: 'o@b.c', slug: 'other' })
        const { key } = await store.createTunnel({ accountId: account.id })
        const { key: otherKey } = await store.createTunnel({ accountId: other.id })
        const session = await store.webSessions.create(account.id)
        const { secret } = await store.apiTokens.create(account.id, 'ci')

        assert.equal(await store.deleteAccount(account.id), true)
        assert.equal(await store.getAccountById(account.id), undefined)
        assert.equal(await store.findTunnelByKey(key), undefined)
        assert.equal(await store.webSessions.find(session.token), undefined)
        assert.equal(await store.apiTokens.authenticate(secret), undefined)
        assert.equal(await store.deleteAccount(account.id), false)
        assert.equal((await store.findTunnelByKey(otherKey))?.accountId, other.id)
      })
    })

    describe('tunnels', () => {
      it('creates a tunnel with a fresh key, a derived subdomain and an id', async () => {
        const account = await store.createAccount({ email: 'a@b.c', slug: 'acme' })
        const { tunnel, key } = await store.createTunnel({
          accountId: account.id,
          name: 'Docs Server',
        })
        assert.match(key, KEY)
        assert.match(tunnel.id, /^tun_[0-9a-f]{20}$/)
        assert.deepEqual(tunnel, {
          id: tunnel.id,
          accountId: account.id,
          name: 'Docs Server',
          subdomain: 'docs-server',
          createdAt: NOW,
          lastSeenAt: null,
        })
      })

      it('stores only the SHA-256 of the key', async () => {
        const account = await store.createAccount({ email: 'a@b.c', slug: 'acme' })
        const { tunnel, key } = await store.createTunnel({ accountId: account.id })
        const row = await store.db
          .selectFrom('tunnels')
          .selectAll()
          .where('id', '=', tunnel.id)
          .executeTakeFirstOrThrow()
        assert.equal(row.key_hash, createHash('sha256').update(key).digest('hex'))
        assert.ok(!JSON.stringify(row).includes(key.slice(4)), 'the key itself is stored')
        assert.ok(!('keyHash' in tunnel) && !('key_hash' in tunnel))
      })

      it('gives each tunnel its own key and subdomain, random when the name is taken or absent', async () => {
        const account = await store.createAccount({ email: 'a@b.c', slug: 'acme' })
        const first = await store.createTunnel({ accountId: account.id, name: 'docs' })
        const second = await store.createTunnel({ accountId: account.id, name: 'docs' })
        const third = await store.createTunnel({ accountId: account.id })
        const fourth = await store.createTunnel({ accountId: account.id, name: '!!! ???' })
        assert.equal(first.tunnel.subdomain, 'docs')
        for (const { tunnel } of [second, third, fourth]) {
          assert.match(tunnel.subdomain, RANDOM_SUBDOMAIN)
        }
        const all = [first, second, third, fourth]
        assert.equal(new Set(all.map((t) => t.key)).size, 4)
        assert.equal(new Set(all.map((t) => t.tunnel.subdomain)).size, 4)
        assert.equal(third.tunnel.name, null)
      })

      it('derives readable subdomains that fit the DNS label', async () => {
        // 39 + 2 leaves 22 characters: the cut lands just after a "-", which is dropped.
        const account = await store.createAccount({ email: 'a@b.c', slug: 's'.repeat(39) })
        const accented = await store.createTunnel({
          accountId: account.id,
          name: '  Café -- Ünïcode ',
        })
        assert.equal(accented.tunnel.subdomain, 'cafe-unicode')
        assert.equal(accented.tunnel.name, 'Café -- Ünïcode')
        const long = await store.createTunnel({
          accountId: account.id,
          name: 'abcdefghij-'.repeat(5),
        })
        assert.equal(long.tunnel.subdomain, 'abcdefghij-abcdefghij')
        assert.ok(`${long.tunnel.subdomain}--${account.slug}`.length <= 63)
      })

      it('uses an explicit subdomain and refuses a taken or invalid one', async () => {
        const account = await store.createAccount({ email: 'a@b.c', slug: 'acme' })
        const { tunnel } = await store.createTunnel({
          accountId: account.id,
          name: 'Docs',
          subdomain: 'api',
        })
        assert.equal(tunnel.subdomain, 'api')
        await rejectsWith(
          store.createTunnel({ accountId: account.id, subdomain: 'api' }),
          'conflict',
          'subdomain "api" is taken',
        )
        await rejectsWith(
          store.createTunnel({ accountId: account.id, subdomain: 'Bad_Sub' }),
          'invalid',
          'Bad_Sub',
        )
        await rejectsWith(
          store.createTunnel({ accountId: account.id, subdomain: 'a--b' }),
          'invalid',
          '--',
        )
        const longSlug = await store.createAccount({ email: 'l@b.c', slug: 'l'.repeat(40) })
        await rejectsWith(
          store.createTunnel({ accountId: longSlug.id, subdomain: 'x'.repeat(30) }),
          'invalid',
          'one DNS label',
        )
      })

      it('lets two accounts use the same subdomain', async () => {
        const a = await store.createAccount({ email: 'a@b.c', slug: 'acme' })
        const b = await store.createAccount({ email: 'b@b.c', slug: 'bolt' })
        await store.createTunnel({ accountId: a.id, subdomain: 'docs' })
        const { tunnel } = await store.createTunnel({ accountId: b.id, subdomain: 'docs' })
        assert.equal(tunnel.subdomain, 'docs')
        assert.equal((await store.findTunnelByHost('docs', 'bolt'))?.accountId, b.id)
        assert.equal((await store.findTunnelByHost('docs', 'acme'))?.accountId, a.id)
      })

      it('lets exactly one of two concurrent creates take a subdomain', async () => {
        const account = await store.createAccount({ email: 'a@b.c', slug: 'acme' })
        const results = await Promise.allSettled([
          store.createTunnel({ accountId: account.id, subdomain: 'race' }),
          store.createTunnel({ accountId: account.id, subdomain: 'race' }),
        ])
        assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1)
        const failure = results.find((r) => r.status === 'rejected')
        assert.ok(failure?.reason instanceof StoreError && failure.reason.code === 'conflict')
      })

      it('refuses an unknown account and an over-long name', async () => {
        await rejectsWith(store.createTunnel({ accountId: 'acc_nope' }), 'not_found', 'acc_nope')
        const account = await store.createAccount({ email: 'a@b.c', slug: 'acme' })
        await rejectsWith(
          store.createTunnel({ accountId: account.id, name: 'n'.repeat(101) }),
          'invalid',
          'at most 100',
        )
      })

      it('finds a tunnel by key and by host, with its account slug and plan', async () => {
        const account = await store.createAccount({ email: 'a@b.c', slug: 'acme', plan: 'pro' })
        const { tunnel, key } = await store.createTunnel({ accountId: account.id, name: 'docs' })
        const expected = {
          ...tunnel,
          serving: true,
          pinned: false,
          accountSlug: 'acme',
          plan: 'pro',
        }
        assert.deepEqual(await store.findTunnelByKey(key), expected)
        assert.deepEqual(await store.findTunnelByHost('docs', 'acme'), expected)
        assert.equal(await store.findTunnelByKey(key + 'x'), undefined)
        assert.equal(await store.findTunnelByKey(key.slice(4)), undefined)
        assert.equal(await store.findTunnelByKey(''), undefined)
        assert.equal(await store.findTunnelByHost('docs', 'other'), undefined)
        assert.equal(await store.findTunnelByHost('api', 'acme'), undefined)
      })

      it('records when a tunnel was last seen and renames it', async () => {
        const account = await store.createAccount({ email: 'a@b.c', slug: 'acme' })
        const { tunnel, key } = await store.createTunnel({ accountId: account.id, name: 'docs' })
        const seen = new Date('2026-03-05T00:00:00.000Z')
        await store.touchTunnel(tunnel.id, seen)
        await store.touchTunnel('tun_gone', seen)
        assert.deepEqual((await store.findTunnelByKey(key))?.lastSeenAt, seen)

        const renamed = await store.renameTunnel(account.id, tunnel.id, '  Team docs ')
        assert.equal(renamed.name, 'Team docs')
        assert.equal(renamed.subdomain, 'docs')
        assert.equal((await store.renameTunnel(account.id, tunnel.id, null)).name, null)
        await rejectsWith(store.renameTunnel(account.id, 'tun_gone', 'x'), 'not_found', 'tun_gone')
        await rejectsWith(store.renameTunnel(account.id, tunnel.id, 'a\nb'), 'invalid', 'printable')
      })

      it('deletes an account’s tunnels with the account', async () => {
        const account = await store.createAccount({ email: 'a@b.c', slug: 'acme' })
        const { key } = await store.createTunnel({ accountId: account.id })
        await store.db.deleteFrom('accounts').where('id', '=', account.id).execute()
        assert.equal(await store.findTunnelByKey(key), undefined)
        const left = await store.db.selectFrom('tunnels').select('id').execute()
        assert.deepEqual(left, [])
      })
    })

    describe('settings', () => {
      it('keeps the first value stored under a key', async () => {
        assert.equal(await store.getSetting('secret'), undefined)
        assert.equal(await store.setSettingIfAbsent('secret', 'one'), 'one')
        assert.equal(await store.setSettingIfAbsent('secret', 'two'), 'one')
        assert.equal(await store.getSetting('secret'), 'one')
      })

      it('gives every concurrent caller the same winning value', async () => {
        const values = Array.from({ length: 8 }, (_, i) => `value-${i}`)
        const stored = await Promise.all(values.map((v) => store.setSettingIfAbsent('shared', v)))
        assert.equal(new Set(stored).size, 1)
        assert.ok(values.includes(stored[0] ?? ''))
      })
    })

    describe('migrations', () => {
      it('are applied once and survive reopening', async () => {
        assert.deepEqual(await migrateToLatest(store.db), [])
        await store.createAccount({ email: 'a@b.c', slug: 'acme' })
        await store.close()
        store = await openStore(database.config)
        assert.equal((await store.getAccountBySlug('acme'))?.email, 'a@b.c')
      })
    })
  })
}

describe('openStore', () => {
  it('leaves a new database unmigrated when asked, for burrowd migrate', async () => {
    const database = await testBackends()[0]!.create()
    const store = await openStore(database.config, { migrate: false })
    try {
      assert.deepEqual(await migrateToLatest(store.db), [
        '001_accounts_tunnels',
        '002_crash_reports',
        '003_usage_counters',
        '004_accounts_web',
        '005_billing',
        '006_meters_history',
        '007_webhooks',
        '008_governance',
        '009_tool_pins',
        '010_account_recovery',
        '011_access',
        '012_custom_domains',
        '013_call_continuations',
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
        '027_tool_pin_forms',
        '028_oauth_codes_by_grant',
        '029_tool_pin_keys',
        '030_webhook_deliveries_by_account',
        '031_subscriptions_from_checkout',
        '032_daily_call_metrics',
        '033_orphan_subscriptions',
        '034_rejected_tool_hashes',
        '035_custom_domain_check_order',
      ])
    } finally {
      await store.close()
      await database.drop()
    }
  })

  it('names the database it cannot reach, without its password', async () => {
    await assert.rejects(
      openStore({ databaseUrl: 'postgres://u:hunter2@127.0.0.1:1/db', dataDir: '/nonexistent' }),
      (error: unknown) => {
        assert.ok(error instanceof DatabaseUnavailableError)
        assert.match(error.message, /PostgreSQL database postgres:\/\/u:\*\*\*@127\.0\.0\.1:1\/db/)
        assert.match(error.message, /ECONNREFUSED/)
        assert.ok(!error.message.includes('hunter2'))
        return true
      },
    )
  })
})
