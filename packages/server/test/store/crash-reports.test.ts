/**
 * The crash-report part of the store contract (`store.crashReports`), run against SQLite always
 * and against PostgreSQL when TEST_DATABASE_URL is set: reports round-trip every field, list
 * newest first up to a limit, and old ones are dropped beyond the cap. Each test gets a fresh
 * database migrated to 002_crash_reports.
 */

import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import {
  DEFAULT_CRASH_REPORTS_KEPT,
  type CrashReportInput,
} from '../../src/store/crash-report-store.js'
import { openStore } from '../../src/store/open-store.js'
import { StoreError } from '../../src/store/store-error.js'
import type { Store } from '../../src/store/store.js'
import { testBackends } from '../helpers/test-databases.js'
import type { TestDatabase } from '../helpers/test-databases.js'

const REPORT: CrashReportInput = {
  clientVersion: '0.1.0',
  os: 'linux',
  arch: 'x64',
  node: 'v20.19.0',
  kind: 'uncaught',
  message: 'TypeError: boom — ünïcode',
  stack: 'TypeError: boom\n    at up (file:///~/burrow/dist/up.js:1:2)',
  command: 'up',
}

for (const backend of testBackends()) {
  describe(`crash reports on ${backend.name}`, () => {
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

    it('starts empty', async () => {
      assert.deepEqual(await store.crashReports.list(10), [])
    })

    it('stores a report with every field and the time it arrived', async () => {
      const added = await store.crashReports.add(REPORT)
      assert.match(added.id, /^crash_[0-9a-f]{20}$/)
      const expected = { ...REPORT, id: added.id, receivedAt: new Date(clock) }
      assert.deepEqual(added, expected)
      assert.deepEqual(await store.crashReports.list(10), [expected])
    })

    it('keeps a missing command as null and an empty message and stack as empty', async () => {
      await store.crashReports.add({
        ...REPORT,
        kind: 'fatal',
        command: null,
        message: '',
        stack: '',
      })
      const [report] = await store.crashReports.list(1)
      assert.equal(report?.command, null)
      assert.equal(report?.kind, 'fatal')
      assert.equal(report?.message, '')
      assert.equal(report?.stack, '')
    })

    it('stores a NUL in the message or stack as U+FFFD (PostgreSQL text cannot hold one)', async () => {
      await store.crashReports.add({ ...REPORT, message: 'a\u0000b', stack: '\u0000' })
      const [report] = await store.crashReports.list(1)
      assert.equal(report?.message, 'a\uFFFDb')
      assert.equal(report?.stack, '\uFFFD')
    })

    it('lists newest first, at most `limit`', async () => {
      for (const n of [1, 2, 3]) {
        clock += 1000
        await store.crashReports.add({ ...REPORT, message: `crash ${n}` })
      }
      const all = await store.crashReports.list(10)
      assert.deepEqual(
        all.map((r) => r.message),
        ['crash 3', 'crash 2', 'crash 1'],
      )
      assert.deepEqual(
        (await store.crashReports.list(2)).map((r) => r.message),
        ['crash 3', 'crash 2'],
      )
    })

    it('keeps only the newest `keep` reports', async () => {
      for (const n of [1, 2, 3, 4]) {
        clock += 1000
        await store.crashReports.add({ ...REPORT, message: `crash ${n}` }, 2)
      }
      assert.deepEqual(
        (await store.crashReports.list(10)).map((r) => r.message),
        ['crash 4', 'crash 3'],
      )
    })

    it('adds to a full store, dropping the oldest reports beyond the kept number', async () => {
      const rows = Array.from({ length: DEFAULT_CRASH_REPORTS_KEPT }, (_, n) => ({
        id: `crash_${String(n).padStart(20, '0')}`,
        received_at: new Date(clock - 1_000_000 + n).toISOString(),
        client_version: '0.1.0',
        os: 'linux',
        arch: 'x64',
        node: 'v20.19.0',
        kind: 'uncaught',
        message: `old ${n}`,
        stack: 'at f (x.js:1:2)\n'.repeat(100),
        command: null,
      }))
      for (let i = 0; i < rows.length; i += 500) {
        await store.db
          .insertInto('crash_reports')
          .values(rows.slice(i, i + 500))
          .execute()
      }
      for (let n = 0; n < 20; n++) {
        clock += 1
        await store.crashReports.add({ ...REPORT, message: `new ${n}` })
      }
      const kept = await store.crashReports.list(DEFAULT_CRASH_REPORTS_KEPT + 1)
      assert.equal(kept.length, DEFAULT_CRASH_REPORTS_KEPT)
      assert.equal(kept[0]?.message, 'new 19')
      assert.equal(kept.at(-1)?.message, 'old 20')
    })

    it('refuses an unknown kind with StoreError invalid and stores nothing', async () => {
      const bad = { ...REPORT, kind: 'panic' } as unknown as CrashReportInput
      await assert.rejects(store.crashReports.add(bad), (error: unknown) => {
        assert.ok(error instanceof StoreError)
        assert.equal(error.code, 'invalid')
        assert.match(error.message, /panic/)
        return true
      })
      assert.deepEqual(await store.crashReports.list(10), [])
    })
  })
}
