/**
 * Expired browser sessions are deleted at start and then on a timer (each sign-in used to leave
 * its row for good); live ones stay. Real stores: SQLite, and PostgreSQL when TEST_DATABASE_URL
 * is set.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { createLogger } from '@burrow/protocol'
import { WebSessionPurger } from '../../src/app/web-session-purger.js'
import { openStore } from '../../src/store/open-store.js'
import type { Store } from '../../src/store/store.js'
import { testBackends, type TestDatabase } from '../helpers/test-databases.js'

const DAY = 24 * 60 * 60 * 1000

for (const backend of testBackends()) {
  describe(`WebSessionPurger on ${backend.name}`, () => {
    let database: TestDatabase
    let store: Store
    let clock: number

    beforeEach(async () => {
      clock = Date.parse('2026-03-04T05:06:07.089Z')
      database = await backend.create()
      store = await openStore(database.config, { now: () => new Date(clock) })
    })

    afterEach(async () => {
      await store.close()
      await database.drop()
    })

    it('deletes expired sessions at start and on its timer, and keeps live ones', async () => {
      const ann = await store.createAccount({ email: 'ann@example.com', slug: 'ann' })
      const old = await Promise.all([1, 2, 3].map(() => store.webSessions.create(ann.id)))
      clock += 31 * DAY
      const live = await store.webSessions.create(ann.id)
      const count = async () =>
        Number(
          (
            await store.db
              .selectFrom('web_sessions')
              .select((eb) => eb.fn.countAll().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        )
      assert.equal(await count(), 4)
      const purger = new WebSessionPurger(
        store.webSessions,
        createLogger('error', () => {}),
        20,
      )
      try {
        await purger.run()
        assert.equal(await count(), 1, 'the three expired rows are gone at start')
        assert.equal(await store.webSessions.find(old[0]!.token), undefined)
        assert.ok(await store.webSessions.find(live.token))
        clock += 31 * DAY
        for (let i = 0; i < 100 && (await count()) > 0; i++) {
          await new Promise((resolve) => setTimeout(resolve, 20))
        }
        assert.equal(await count(), 0, 'and the next on the timer')
      } finally {
        await purger.close()
      }
    })
  })
}
