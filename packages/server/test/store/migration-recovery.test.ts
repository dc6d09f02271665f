/**
 * Upgrading a database on both backends: a migration that fails half-way (a full disk, a killed
 * process) leaves nothing behind, so the next start applies it again; and migrations recorded
 * by a clock that was behind (a host that booted before its clock was set, another node) do not
 * stop burrowd from opening the database; one a newer burrowd migrated is refused as such.
 */
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, it } from 'node:test'
import SqliteDatabase from 'better-sqlite3'
import { sql } from 'kysely'
import pg from 'pg'
import { DEFAULT_SQLITE_FILE } from '../../src/store/database-target.js'
import { openStore } from '../../src/store/open-store.js'
import { testBackends, type TestDatabase } from '../helpers/test-databases.js'

/** Run `statements` on the test database directly, outside burrowd's store. */
async function execute(database: TestDatabase, statements: string): Promise<void> {
  const { databaseUrl, dataDir } = database.config
  if (databaseUrl === null) {
    const sqlite = new SqliteDatabase(join(dataDir, DEFAULT_SQLITE_FILE))
    try {
      sqlite.exec(statements)
    } finally {
      sqlite.close()
    }
    return
  }
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    await client.query(statements)
  } finally {
    await client.end()
  }
}

/** A failure while migration 011 is recorded, after everything it does to the schema. */
const FAIL_RECORDING_011 = {
  sqlite: `create trigger fail_011 before insert on kysely_migration when new.name = '011_access'
    begin select raise(abort, 'disk full'); end;`,
  postgres: `create function fail_011() returns trigger language plpgsql as $$
    begin if new.name = '011_access' then raise exception 'disk full'; end if; return new; end $$;
    create trigger fail_011 before insert on kysely_migration
    for each row execute function fail_011();`,
}

const DROP_FAILURE = {
  sqlite: 'drop trigger fail_011;',
  postgres: 'drop trigger fail_011 on kysely_migration; drop function fail_011();',
}

for (const backend of testBackends()) {
  describe(`upgrading a ${backend.name} database`, () => {
    let database: TestDatabase

    beforeEach(async () => {
      database = await backend.create({ empty: true })
    })

    afterEach(async () => {
      await database.drop()
    })

    it('applies a migration again on the next start after it failed half-way', async () => {
      await execute(
        database,
        `create table kysely_migration (name varchar(255) not null primary key,
          timestamp varchar(255) not null);` + FAIL_RECORDING_011[backend.name],
      )
      await assert.rejects(openStore(database.config), /011_access.*disk full/)
      await execute(database, DROP_FAILURE[backend.name])

      const store = await openStore(database.config)
      try {
        const tunnels = await store.db.selectFrom('tunnel_access').selectAll().execute()
        assert.deepEqual(tunnels, [])
      } finally {
        await store.close()
      }
    })

    it('opens a database whose migrations were recorded by a clock that was behind', async () => {
      await (await openStore(database.config)).close()
      // 020 recorded by a clock far behind; 021 not applied yet.
      await execute(
        database,
        `update kysely_migration set timestamp = '2000-01-01T00:00:00.000Z'
          where name = '020_released_tunnels';
        delete from kysely_migration where name = '021_canonical_emails';`,
      )
      const store = await openStore(database.config)
      try {
        const { rows } = await sql`select name from kysely_migration
          where name = '021_canonical_emails'`.execute(store.db)
        assert.equal(rows.length, 1)
      } finally {
        await store.close()
      }
    })

    it('refuses a database a newer burrowd migrated, and leaves it as it was', async () => {
      await (await openStore(database.config)).close()
      await execute(
        database,
        `insert into kysely_migration (name, timestamp)
          values ('999_from_the_future', '2030-01-01T00:00:00.000Z')`,
      )
      await assert.rejects(openStore(database.config), /newer burrowd.*999_from_the_future/)
      await execute(database, `delete from kysely_migration where name = '999_from_the_future'`)
      await (await openStore(database.config)).close()
    })
  })
}
