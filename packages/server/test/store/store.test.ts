/**
 * The store contract: one suite of behaviours every backend must show, run against SQLite
 * always and against PostgreSQL when TEST_DATABASE_URL is set. Each test gets a fresh database.
 */

import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { DatabaseUnavailableError } from '../../src/store/database-unavailable-error.js'
import { migrateToLatest } from '../../src/store/migrations.js'
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

    beforeEach(async () => {
      database = await backend.create()
      store = await openStore(database.config, { now: () => NOW })
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
        for (const email of ['nope', 'a b@c.d', '@b.c', 'a@', 'a@b..c']) {
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
        const expected = { ...tunnel, accountSlug: 'acme', plan: 'pro' }
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

        const renamed = await store.renameTunnel(tunnel.id, '  Team docs ')
        assert.equal(renamed.name, 'Team docs')
        assert.equal(renamed.subdomain, 'docs')
        assert.equal((await store.renameTunnel(tunnel.id, null)).name, null)
        await rejectsWith(store.renameTunnel('tun_gone', 'x'), 'not_found', 'tun_gone')
        await rejectsWith(store.renameTunnel(tunnel.id, 'a\nb'), 'invalid', 'printable')
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
