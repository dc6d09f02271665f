/**
 * The web side's tunnel services over a real store, when a delete of the same tunnel commits
 * between a write and the read of the tunnel it answers with: the write is answered as a tunnel
 * that no longer exists (`not_found`, 404), not as burrowd's failure (500, logged with a stack).
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { storeWebServices } from '../../src/app/store-web-services.js'
import { toHttpError } from '../../src/app/store-error-status.js'
import { openStore } from '../../src/store/open-store.js'
import type { Account, Store } from '../../src/store/store.js'
import { testBackends, type TestDatabase } from '../helpers/test-databases.js'

for (const backend of testBackends()) {
  describe(`storeWebServices tunnels on ${backend.name}`, () => {
    let database: TestDatabase
    let store: Store
    let account: Account

    beforeEach(async () => {
      database = await backend.create()
      store = await openStore(database.config)
      account = await store.createAccount({ email: 'racer@example.com', slug: 'racer' })
    })

    afterEach(async () => {
      await store.close()
      await database.drop()
    })

    /** `store`, where the tunnel is deleted right after `method` wrote to it. */
    const deletedAfter = (method: 'rotateTunnelKey' | 'createTunnelWithinPlan'): Store =>
      new Proxy(store, {
        get(target, prop) {
          const value: unknown = Reflect.get(target, prop, target)
          if (typeof value !== 'function') return value
          const fn = value as (...args: unknown[]) => unknown
          if (prop !== method) return fn.bind(target)
          return async (...args: unknown[]) => {
            const done = (await fn.apply(target, args)) as { tunnel: { id: string } }
            await target.deleteTunnel(account.id, done.tunnel.id)
            return done
          }
        },
      })

    const services = (s: Store) =>
      storeWebServices({
        store: s,
        live: { isOnline: () => false, disconnect: () => {}, evictAccount: () => {} },
        billing: {} as never,
        webhooks: {} as never,
        governance: {} as never,
        access: {} as never,
        meters: () => Promise.reject(new Error('not used')),
        publicUrl: (sub, slug) => `https://${sub}--${slug}.burrow.test`,
      })

    it('answers a key rotation whose tunnel was deleted meanwhile with 404', async () => {
      const made = await services(store).tunnels.create(account.id, { name: 'raced' })
      const rotation = services(deletedAfter('rotateTunnelKey')).tunnels.rotateKey(
        account.id,
        made.tunnel.id,
      )
      const err = await rotation.then(
        () => assert.fail('the rotation of a deleted tunnel answered with its tunnel'),
        (e: unknown) => e,
      )
      assert.equal(toHttpError(err).status, 404, String(err))
    })

    it('answers a create whose tunnel was deleted meanwhile with 404', async () => {
      const creation = services(deletedAfter('createTunnelWithinPlan')).tunnels.create(account.id, {
        name: 'gone',
      })
      const err = await creation.then(
        () => assert.fail('the create answered with a deleted tunnel'),
        (e: unknown) => e,
      )
      assert.equal(toHttpError(err).status, 404, String(err))
    })
  })
}
