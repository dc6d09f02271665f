/**
 * Statements compiled once per row count, on every test database: the rows land exactly as a
 * statement built each time would write them, a template is reused for the next batch of the
 * same size, and a statement whose parameters are not all row values is built each time.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import type { Insertable } from 'kysely'
import { openStore } from '../../src/store/open-store.js'
import { MAX_TEMPLATES, RowStatements } from '../../src/store/row-statements.js'
import type { Database, UsageCountersTable } from '../../src/store/schema.js'
import type { Store } from '../../src/store/store.js'
import { testBackends, type TestDatabase } from '../helpers/test-databases.js'

type Row = Insertable<UsageCountersTable>
const COLUMNS = ['period', 'tunnel_id', 'metric', 'value', 'updated_at'] as const

function rowsOf(tunnelIds: readonly string[], value: number): Row[] {
  return tunnelIds.map((tunnelId, i) => ({
    period: '2026-03',
    tunnel_id: tunnelId,
    metric: 'tool_calls',
    value: value + i,
    updated_at: `2026-03-10T12:00:0${i}.000Z`,
  }))
}

for (const backend of testBackends()) {
  describe(`row statements on ${backend.name}`, () => {
    let database: TestDatabase
    let store: Store
    let tunnels: string[]

    beforeEach(async () => {
      database = await backend.create()
      store = await openStore(database.config)
      const account = await store.createAccount({
        email: 'a@example.com',
        slug: 'acme',
        plan: 'pro',
      })
      tunnels = []
      for (const name of ['one', 'two', 'three']) {
        tunnels.push((await store.createTunnel({ accountId: account.id, name })).tunnel.id)
      }
    })

    afterEach(async () => {
      await store.close()
      await database.drop()
    })

    const stored = () =>
      store.db
        .selectFrom('usage_counters')
        .select(['tunnel_id', 'metric', 'value', 'updated_at'])
        .orderBy('tunnel_id')
        .execute()

    it('writes each value in its column, again with the template of the first batch', async () => {
      const statements = new RowStatements<Database, Row>(COLUMNS)
      const upsert = (rows: readonly Row[]) =>
        statements.run(store.db, 'upsert', rows, (db, some) =>
          db
            .insertInto('usage_counters')
            .values(some)
            .onConflict((oc) =>
              oc.columns(['period', 'tunnel_id', 'metric']).doUpdateSet((eb) => ({
                value: eb('usage_counters.value', '+', eb.ref('excluded.value')),
                updated_at: eb.ref('excluded.updated_at'),
              })),
            ),
        )
      await upsert(rowsOf(tunnels, 10))
      await upsert(rowsOf(tunnels, 100))
      await upsert(rowsOf(tunnels.slice(1), 1000))
      await upsert([])
      const expected = tunnels
        .map((tunnelId, i) => ({
          tunnel_id: tunnelId,
          metric: 'tool_calls',
          value: 10 + i + 100 + i + (i === 0 ? 0 : 1000 + i - 1),
          updated_at: `2026-03-10T12:00:0${i === 0 ? 0 : i - 1}.000Z`,
        }))
        .sort((a, b) => a.tunnel_id.localeCompare(b.tunnel_id))
      const got = (await stored()).map((r) => ({ ...r, value: Number(r.value) }))
      assert.deepEqual(got, expected)
    })

    it('keeps a bounded number of templates, and stays right past the bound', async () => {
      const statements = new RowStatements<Database, Row>(COLUMNS)
      const insert = (rows: readonly Row[]) =>
        statements.run(store.db, 'insert', rows, (db, some) =>
          db.insertInto('usage_counters').values(some),
        )
      // A row per period: every row count from 1 up, then the first counts again.
      let month = 0
      const batch = (count: number) =>
        Array.from({ length: count }, () => {
          month++
          return {
            period: `${2000 + Math.floor(month / 12)}-${String((month % 12) + 1).padStart(2, '0')}`,
            tunnel_id: tunnels[0]!,
            metric: 'tool_calls',
            value: month,
            updated_at: '2026-03-10T12:00:00.000Z',
          }
        })
      for (let count = 1; count <= MAX_TEMPLATES + 4; count++) await insert(batch(count))
      assert.ok(statements.cached <= MAX_TEMPLATES)
      for (let count = 1; count <= 3; count++) await insert(batch(count))
      const stored = await store.db
        .selectFrom('usage_counters')
        .select(['period', 'value'])
        .orderBy('value')
        .execute()
      assert.equal(stored.length, month)
      assert.deepEqual(
        stored.map((r) => Number(r.value)),
        Array.from({ length: month }, (_, i) => i + 1),
      )
    })

    it('builds a statement each time when one of its parameters is not a row value', async () => {
      const statements = new RowStatements<Database, Row>(COLUMNS)
      let builds = 0
      const upsert = (rows: readonly Row[]) =>
        statements.run(store.db, 'stamp', rows, (db, some) => {
          builds++
          return db
            .insertInto('usage_counters')
            .values(some)
            .onConflict((oc) =>
              oc
                .columns(['period', 'tunnel_id', 'metric'])
                .doUpdateSet({ updated_at: '2026-03-31T00:00:00.000Z' }),
            )
        })
      await upsert(rowsOf(tunnels, 1))
      await upsert(rowsOf(tunnels, 2))
      // Compiled once for the template (refused), then built for each batch.
      assert.equal(builds, 3)
      // The second batch met the first one's rows: only the stamp was updated.
      const byTunnel = new Map((await stored()).map((r) => [r.tunnel_id, r]))
      for (const [i, tunnelId] of tunnels.entries()) {
        const row = byTunnel.get(tunnelId)
        assert.equal(Number(row?.value), 1 + i)
        assert.equal(row?.updated_at, '2026-03-31T00:00:00.000Z')
      }
    })
  })
}
