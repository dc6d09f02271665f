/** The statement cache under Kysely's SQLite dialect: reuse by SQL text, LRU bound, busy statements. */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import SqliteDatabase from 'better-sqlite3'
import { Kysely, SqliteDialect, sql } from 'kysely'
import { cachedSqliteDatabase } from '../../src/store/cached-sqlite-database.js'

describe('cachedSqliteDatabase', () => {
  it('prepares each SQL text once', () => {
    const db = cachedSqliteDatabase(new SqliteDatabase(':memory:'))
    const a = db.prepare('select 1 as one')
    assert.equal(db.prepare('select 1 as one'), a)
    assert.notEqual(db.prepare('select 2 as two'), a)
    db.close()
  })

  it('drops the least recently used statement past its capacity', () => {
    const db = cachedSqliteDatabase(new SqliteDatabase(':memory:'), 2)
    const one = db.prepare('select 1')
    const two = db.prepare('select 2')
    assert.equal(db.prepare('select 1'), one) // now the most recently used
    db.prepare('select 3') // evicts "select 2"
    assert.equal(db.prepare('select 1'), one)
    assert.notEqual(db.prepare('select 2'), two)
    db.close()
  })

  it('gives a statement that is still iterating a fresh twin', () => {
    const raw = new SqliteDatabase(':memory:')
    const db = cachedSqliteDatabase(raw)
    const text = 'select value from json_each(?)'
    const rows = db.prepare(text).iterate(['[1,2,3]'])
    assert.deepEqual(rows.next().value, { value: 1 })
    const twin = db.prepare(text)
    assert.deepEqual(twin.all(['[7]']), [{ value: 7 }])
    assert.deepEqual([...rows], [{ value: 2 }, { value: 3 }])
    db.close()
    assert.equal(raw.open, false)
  })

  it('runs Kysely queries, transactions and schema changes', async () => {
    const db = new Kysely<{ t: { id: number; name: string } }>({
      dialect: new SqliteDialect({
        database: cachedSqliteDatabase(new SqliteDatabase(':memory:')),
      }),
    })
    await db.schema.createTable('t').addColumn('id', 'integer').addColumn('name', 'text').execute()
    for (let id = 1; id <= 3; id++) {
      await db.transaction().execute(async (trx) => {
        await trx
          .insertInto('t')
          .values({ id, name: `n${id}` })
          .execute()
      })
    }
    const select = () => db.selectFrom('t').selectAll().orderBy('id').execute()
    assert.deepEqual(
      (await select()).map((r) => r.name),
      ['n1', 'n2', 'n3'],
    )
    // A cached statement sees a column added after it was prepared.
    await sql`alter table t add column extra text default 'x'`.execute(db)
    assert.deepEqual(Object.keys((await select())[0]!), ['id', 'name', 'extra'])
    await db.destroy()
  })
})
