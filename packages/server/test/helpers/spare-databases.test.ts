// PostgreSQL test databases given back to the next test of the process: emptied, and only when
// the test left their tables as the template made them.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import pg from 'pg'
import { openStore } from '../../src/store/open-store.js'
import { testBackends } from './test-databases.js'

const postgres = testBackends().find((backend) => backend.name === 'postgres')

async function anyWithOid(oid: number): Promise<boolean> {
  const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL })
  await admin.connect()
  try {
    return (await admin.query('select 1 from pg_database where oid = $1', [oid])).rowCount === 1
  } finally {
    await admin.end()
  }
}

/** The database's oid (it keeps it when renamed), or null when no database has that name. */
async function oidOf(url: string): Promise<number | null> {
  const name = new URL(url).pathname.slice(1)
  const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL })
  await admin.connect()
  try {
    const found = await admin.query<{ oid: number }>(
      'select oid from pg_database where datname = $1',
      [name],
    )
    return found.rows[0]?.oid ?? null
  } finally {
    await admin.end()
  }
}

describe(
  'spare PostgreSQL test databases',
  { skip: !postgres && 'needs TEST_DATABASE_URL' },
  () => {
    it('gives a dropped database to the next test, emptied and renamed, cutting off what was still connected', async () => {
      const first = await postgres!.create()
      const oid = await oidOf(first.config.databaseUrl!)
      const store = await openStore(first.config)
      await store.createAccount({ email: 'ann@example.com', slug: 'acme' })
      // A connection the test left open, as a store it forgot to close would.
      const left = new pg.Client({ connectionString: first.config.databaseUrl! })
      const cut = new Promise<Error>((resolve) => left.on('error', resolve))
      await left.connect()
      await store.close()
      await first.drop()
      await first.drop()
      assert.match((await cut).message, /terminat/)
      // What the test left behind cannot reach it again.
      assert.equal(await oidOf(first.config.databaseUrl!), null)
      const stale = new pg.Client({ connectionString: first.config.databaseUrl! })
      await assert.rejects(stale.connect(), /does not exist/)
      const second = await postgres!.create()
      const third = await postgres!.create()
      try {
        assert.equal(await oidOf(second.config.databaseUrl!), oid)
        assert.notEqual(await oidOf(third.config.databaseUrl!), oid, 'dropped twice, given once')
        const again = await openStore(second.config)
        assert.equal(await again.getAccountBySlug('acme'), undefined)
        await again.createAccount({ email: 'ann@example.com', slug: 'acme' })
        await again.close()
      } finally {
        await second.drop()
        await third.drop()
      }
    })

    it('drops a database whose tables a test changed', async () => {
      const changed = await postgres!.create()
      const client = new pg.Client({ connectionString: changed.config.databaseUrl! })
      await client.connect()
      await client.query('alter table accounts add column extra text')
      await client.end()
      const oid = await oidOf(changed.config.databaseUrl!)
      await changed.drop()
      assert.equal(await anyWithOid(oid!), false, 'dropped, not given to the next test')
      const next = await postgres!.create()
      try {
        assert.notEqual(await oidOf(next.config.databaseUrl!), oid)
      } finally {
        await next.drop()
      }
    })
  },
)
