/**
 * The tunnel part of the store contract (`tunnel-store.ts`, reached as `store.createTunnel…`),
 * run against SQLite always and PostgreSQL when TEST_DATABASE_URL is set: the plan's tunnel
 * limit holds under concurrent creates, the operator is not limited, tunnels beyond the plan stop
 * serving after a downgrade or a paid period's end and the owner chooses which stay, keys rotate,
 * and no account can read or change another's tunnels.
 */

import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import type { PlanId } from '../../src/plans.js'
import { openStore } from '../../src/store/open-store.js'
import { StoreError } from '../../src/store/store-error.js'
import type { StoreErrorCode } from '../../src/store/store-error.js'
import type { Account, Store, TunnelStatus } from '../../src/store/store.js'
import { testBackends } from '../helpers/test-databases.js'
import type { TestDatabase } from '../helpers/test-databases.js'

const START = Date.parse('2026-03-04T05:06:07.089Z')
const KEY = /^mtk_[A-Za-z0-9_-]{43}$/

/** Assert that `promise` rejects with a StoreError of `code` whose message has every fragment. */
async function rejectsWith(
  promise: Promise<unknown>,
  code: StoreErrorCode,
  ...fragments: string[]
): Promise<StoreError> {
  let caught: StoreError | undefined
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof StoreError, `expected StoreError, got ${String(error)}`)
    assert.equal(error.code, code, error.message)
    for (const fragment of fragments) {
      assert.ok(error.message.includes(fragment), `"${error.message}" lacks "${fragment}"`)
    }
    caught = error
    return true
  })
  assert.ok(caught)
  return caught
}

/** Ids of the serving tunnels and of the others, in list order. */
function split(list: readonly TunnelStatus[]): { serving: string[]; idle: string[] } {
  return {
    serving: list.filter((t) => t.serving).map((t) => t.id),
    idle: list.filter((t) => !t.serving).map((t) => t.id),
  }
}

/** `created`, a StoreError's code, or any other error's message, for each settled create. */
function outcomes(results: readonly PromiseSettledResult<unknown>[]): string[] {
  return results.map((r) => {
    if (r.status === 'fulfilled') return 'created'
    return r.reason instanceof StoreError ? r.reason.code : String(r.reason)
  })
}

for (const backend of testBackends()) {
  describe(`tunnels on ${backend.name}`, () => {
    let database: TestDatabase
    let store: Store
    let clock: number

    beforeEach(async () => {
      clock = START
      database = await backend.create()
      store = await openStore(database.config, { now: () => new Date(clock) })
    })

    afterEach(async () => {
      await store.close()
      await database.drop()
    })

    async function account(slug: string, plan: PlanId = 'free'): Promise<Account> {
      return store.createAccount({ email: `${slug}@example.com`, slug, plan })
    }

    async function setPlan(id: string, plan: PlanId, expiresAt: number | null = null) {
      await store.db
        .updateTable('accounts')
        .set({
          plan,
          plan_expires_at: expiresAt === null ? null : new Date(expiresAt).toISOString(),
        })
        .where('id', '=', id)
        .execute()
    }

    /** `n` tunnels made a second apart, oldest first, with their keys. */
    async function tunnels(owner: Account, n: number) {
      const made = []
      for (let i = 0; i < n; i++) {
        clock += 1000
        made.push(await store.createTunnel({ accountId: owner.id, name: `t${i + 1}` }))
      }
      return made
    }

    /**
     * Assert that what the edge and broker see (findTunnelByKey/Host, one SQL query each) and
     * what getTunnel says agree with listTunnels about which tunnels serve.
     */
    async function assertLookupsAgree(owner: Account, keys: ReadonlyMap<string, string>) {
      const list = await store.listTunnels(owner.id)
      for (const status of list) {
        const byKey = await store.findTunnelByKey(keys.get(status.id) ?? '')
        const byHost = await store.findTunnelByHost(status.subdomain, owner.slug)
        const got = await store.getTunnel(owner.id, status.id)
        assert.equal(byKey?.serving, status.serving, `findTunnelByKey of ${status.name}`)
        assert.equal(byHost?.serving, status.serving, `findTunnelByHost of ${status.name}`)
        assert.deepEqual(got, status)
      }
    }

    describe('creating within the plan', () => {
      it('creates up to the plan’s limit, then refuses with plan_limit naming it', async () => {
        const free = await account('acme')
        const first = await store.createTunnelWithinPlan({ accountId: free.id, name: 'Docs' })
        assert.match(first.key, KEY)
        assert.equal(first.tunnel.subdomain, 'docs')
        assert.equal((await store.findTunnelByKey(first.key))?.id, first.tunnel.id)
        await store.createTunnelWithinPlan({ accountId: free.id, subdomain: 'api' })
        const error = await rejectsWith(
          store.createTunnelWithinPlan({ accountId: free.id }),
          'plan_limit',
          'Free',
          '2 tunnels',
          'upgrade',
        )
        assert.equal(error.limit, 2)
        assert.equal((await store.listTunnels(free.id)).length, 2)

        const pro = await account('bolt', 'pro')
        for (let i = 0; i < 5; i++) await store.createTunnelWithinPlan({ accountId: pro.id })
        const proError = await rejectsWith(
          store.createTunnelWithinPlan({ accountId: pro.id }),
          'plan_limit',
          'Pro',
          '5 tunnels',
          'upgrade',
        )
        assert.equal(proError.limit, 5)
      })

      it('applies the subdomain and name rules of createTunnel', async () => {
        const owner = await account('acme')
        await store.createTunnelWithinPlan({ accountId: owner.id, subdomain: 'api' })
        await rejectsWith(
          store.createTunnelWithinPlan({ accountId: owner.id, subdomain: 'api' }),
          'conflict',
          'subdomain "api" is taken',
        )
        await rejectsWith(
          store.createTunnelWithinPlan({ accountId: owner.id, subdomain: 'Bad_Sub' }),
          'invalid',
          'Bad_Sub',
        )
        await rejectsWith(
          store.createTunnelWithinPlan({ accountId: owner.id, name: 'n'.repeat(101) }),
          'invalid',
          'at most 100',
        )
        await rejectsWith(
          store.createTunnelWithinPlan({ accountId: 'acc_nope' }),
          'not_found',
          'acc_nope',
        )
        assert.equal((await store.listTunnels(owner.id)).length, 1)
      })

      it('counts each account separately under 50 concurrent creates', async () => {
        const owner = await account('acme')
        const other = await account('bolt')
        const results = await Promise.allSettled(
          Array.from({ length: 50 }, (_, i) =>
            store.createTunnelWithinPlan({ accountId: i % 10 === 0 ? other.id : owner.id }),
          ),
        )
        const codes = outcomes(results)
        assert.equal(codes.filter((c) => c === 'created').length, 4)
        assert.equal(codes.filter((c) => c === 'plan_limit').length, 46)
        const rows = await store.db
          .selectFrom('tunnels')
          .select(['account_id'])
          .where('account_id', '=', owner.id)
          .execute()
        assert.equal(rows.length, 2)
        assert.equal((await store.listTunnels(other.id)).length, 2)
      })

      it('holds the limit for 50 concurrent creates on one Free account', async () => {
        const owner = await account('acme')
        const results = await Promise.allSettled(
          Array.from({ length: 50 }, () => store.createTunnelWithinPlan({ accountId: owner.id })),
        )
        const codes = outcomes(results)
        assert.equal(codes.filter((c) => c === 'created').length, 2)
        assert.equal(codes.filter((c) => c === 'plan_limit').length, 48)
        const { count } = await store.db
          .selectFrom('tunnels')
          .select((eb) => eb.fn.countAll<number | string>().as('count'))
          .executeTakeFirstOrThrow()
        assert.equal(Number(count), 2)
      })

      it('leaves the operator’s createTunnel unlimited', async () => {
        const owner = await account('acme')
        const made = await tunnels(owner, 4)
        assert.equal(made.length, 4)
        await rejectsWith(
          store.createTunnelWithinPlan({ accountId: owner.id }),
          'plan_limit',
          'Free',
        )
        const list = await store.listTunnels(owner.id)
        assert.deepEqual(split(list), {
          serving: made.slice(0, 2).map((t) => t.tunnel.id),
          idle: made.slice(2).map((t) => t.tunnel.id),
        })
      })
    })

    describe('serving', () => {
      it('serves every tunnel within the plan, oldest first', async () => {
        const owner = await account('acme', 'pro')
        const made = await tunnels(owner, 3)
        const list = await store.listTunnels(owner.id)
        assert.deepEqual(
          list.map((t) => [t.name, t.serving, t.pinned]),
          [
            ['t1', true, false],
            ['t2', true, false],
            ['t3', true, false],
          ],
        )
        assert.deepEqual(list[0], { ...made[0]!.tunnel, serving: true, pinned: false })
        assert.deepEqual(await store.listTunnels('acc_nope'), [])
      })

      it('after a downgrade serves the oldest, then the ones the owner chooses', async () => {
        const owner = await account('acme', 'pro')
        const made = await tunnels(owner, 5)
        const ids = made.map((t) => t.tunnel.id)
        const keys = new Map(made.map((t) => [t.tunnel.id, t.key]))
        await setPlan(owner.id, 'free')

        assert.deepEqual(split(await store.listTunnels(owner.id)), {
          serving: [ids[0], ids[1]],
          idle: [ids[2], ids[3], ids[4]],
        })
        await assertLookupsAgree(owner, keys)

        const chosen = await store.chooseServingTunnels(owner.id, [ids[4]!, ids[2]!, ids[4]!])
        assert.deepEqual(
          chosen.map((t) => [t.name, t.serving, t.pinned]),
          [
            ['t3', true, true],
            ['t5', true, true],
            ['t1', false, false],
            ['t2', false, false],
            ['t4', false, false],
          ],
        )
        assert.deepEqual(await store.listTunnels(owner.id), chosen)
        await assertLookupsAgree(owner, keys)

        // Choosing again replaces the choice; one pinned tunnel leaves the oldest other a place.
        await store.chooseServingTunnels(owner.id, [ids[3]!])
        assert.deepEqual(split(await store.listTunnels(owner.id)), {
          serving: [ids[3], ids[0]],
          idle: [ids[1], ids[2], ids[4]],
        })
        await assertLookupsAgree(owner, keys)

        // Upgrading again serves all of them.
        await setPlan(owner.id, 'pro')
        assert.equal(split(await store.listTunnels(owner.id)).idle.length, 0)
        await assertLookupsAgree(owner, keys)
      })

      it('ends a cancelled plan’s extra tunnels at the period end, with no write', async () => {
        const owner = await account('acme', 'pro')
        const end = START + 3_600_000
        await setPlan(owner.id, 'pro', end)
        const made = []
        for (let i = 0; i < 5; i++) {
          clock += 1000
          made.push(await store.createTunnelWithinPlan({ accountId: owner.id, name: `t${i}` }))
        }
        const keys = new Map(made.map((t) => [t.tunnel.id, t.key]))
        const last = made[4]!
        assert.equal((await store.findTunnelByKey(last.key))?.serving, true)

        clock = end
        const found = await store.findTunnelByKey(last.key)
        assert.equal(found?.serving, false)
        assert.equal(found?.plan, 'free')
        assert.equal(split(await store.listTunnels(owner.id)).serving.length, 2)
        await assertLookupsAgree(owner, keys)
        await rejectsWith(
          store.createTunnelWithinPlan({ accountId: owner.id }),
          'plan_limit',
          'Free',
          '2 tunnels',
        )
      })

      it('breaks ties in creation time the same way in every lookup', async () => {
        const owner = await account('acme', 'pro')
        const made = []
        for (let i = 0; i < 5; i++) made.push(await store.createTunnel({ accountId: owner.id }))
        await setPlan(owner.id, 'free')
        const list = await store.listTunnels(owner.id)
        assert.deepEqual(
          list.map((t) => t.id),
          made.map((t) => t.tunnel.id).sort(),
        )
        assert.equal(split(list).serving.length, 2)
        await assertLookupsAgree(owner, new Map(made.map((t) => [t.tunnel.id, t.key])))
      })

      it('refuses an empty choice, too many tunnels, or one the account does not own', async () => {
        const owner = await account('acme', 'pro')
        const made = await tunnels(owner, 4)
        const ids = made.map((t) => t.tunnel.id)
        await store.chooseServingTunnels(owner.id, [ids[3]!])
        await setPlan(owner.id, 'free')

        await rejectsWith(store.chooseServingTunnels(owner.id, []), 'invalid', 'at least one')
        const error = await rejectsWith(
          store.chooseServingTunnels(owner.id, ids.slice(0, 3)),
          'invalid',
          'Free',
          'at most 2',
        )
        assert.equal(error.limit, 2)
        await rejectsWith(
          store.chooseServingTunnels(owner.id, [ids[0]!, 'tun_nope']),
          'invalid',
          'tun_nope',
        )
        await rejectsWith(
          store.chooseServingTunnels('acc_nope', [ids[0]!]),
          'not_found',
          'acc_nope',
        )
        // Nothing changed: the earlier choice stands.
        const list = await store.listTunnels(owner.id)
        assert.deepEqual(
          list.filter((t) => t.pinned).map((t) => t.id),
          [ids[3]],
        )
      })
    })

    describe('owner operations', () => {
      it('gets a tunnel with its status', async () => {
        const owner = await account('acme')
        const { tunnel } = await store.createTunnelWithinPlan({ accountId: owner.id })
        assert.deepEqual(await store.getTunnel(owner.id, tunnel.id), {
          ...tunnel,
          serving: true,
          pinned: false,
        })
        assert.equal(await store.getTunnel(owner.id, 'tun_nope'), undefined)
      })

      it('rotates a key: the new one authenticates, the old one no longer does', async () => {
        const owner = await account('acme')
        const { tunnel, key } = await store.createTunnel({ accountId: owner.id, name: 'docs' })
        const rotated = await store.rotateTunnelKey(owner.id, tunnel.id)
        assert.match(rotated.key, KEY)
        assert.notEqual(rotated.key, key)
        assert.deepEqual(rotated.tunnel, tunnel)
        assert.equal(await store.findTunnelByKey(key), undefined)
        assert.equal((await store.findTunnelByKey(rotated.key))?.id, tunnel.id)
        await rejectsWith(store.rotateTunnelKey(owner.id, 'tun_nope'), 'not_found', 'tun_nope')
      })

      it('deletes a tunnel, freeing a place in the plan', async () => {
        const owner = await account('acme')
        const first = await store.createTunnelWithinPlan({ accountId: owner.id, subdomain: 'a' })
        await store.createTunnelWithinPlan({ accountId: owner.id, subdomain: 'b' })
        assert.deepEqual(await store.deleteTunnel(owner.id, first.tunnel.id), {
          ...first.tunnel,
          startedServing: null,
        })
        assert.equal(await store.findTunnelByKey(first.key), undefined)
        assert.equal(await store.findTunnelByHost('a', 'acme'), undefined)
        assert.equal(await store.getTunnel(owner.id, first.tunnel.id), undefined)
        await rejectsWith(store.deleteTunnel(owner.id, first.tunnel.id), 'not_found', 'tun_')
        await store.createTunnelWithinPlan({ accountId: owner.id, subdomain: 'a' })
        assert.equal((await store.listTunnels(owner.id)).length, 2)
      })
    })

    describe('isolation between accounts', () => {
      it('never lets one account read, rename, re-key, delete or choose another’s tunnel', async () => {
        const a = await account('acme', 'pro')
        const b = await account('bolt', 'pro')
        await store.createTunnel({ accountId: a.id, name: 'mine' })
        const theirs = await store.createTunnel({ accountId: b.id, name: 'theirs' })
        const id = theirs.tunnel.id

        assert.equal(await store.getTunnel(a.id, id), undefined)
        assert.deepEqual(
          (await store.listTunnels(a.id)).map((t) => t.name),
          ['mine'],
        )
        await rejectsWith(store.renameTunnel(a.id, id, 'stolen'), 'not_found', id)
        await rejectsWith(store.rotateTunnelKey(a.id, id), 'not_found', id)
        await rejectsWith(store.deleteTunnel(a.id, id), 'not_found', id)
        await rejectsWith(store.chooseServingTunnels(a.id, [id]), 'invalid', id)

        // B's tunnel is untouched: same name, same key, not pinned, still there.
        const after = await store.findTunnelByKey(theirs.key)
        assert.equal(after?.name, 'theirs')
        assert.equal(after?.pinned, false)
        assert.equal(after?.accountId, b.id)
        assert.deepEqual(
          (await store.listTunnels(b.id)).map((t) => t.id),
          [id],
        )
      })
    })
  })
}
