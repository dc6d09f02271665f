/**
 * `burrowd migrate` finds its migration tables where `serve` does: in the current schema, not
 * in another schema of the database that has tables of the same names (another application
 * migrated with Kysely).
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import pg from 'pg'
import { loadConfig } from '../../src/config.js'
import { migrate } from '../../src/operator/migrate.js'
import { openStore } from '../../src/store/open-store.js'
import { testBackends, type TestDatabase } from '../helpers/test-databases.js'

const postgres = testBackends().find((backend) => backend.name === 'postgres')

describe('burrowd migrate on PostgreSQL', { skip: postgres === undefined }, () => {
  let database: TestDatabase
  let url: string

  beforeEach(async () => {
    database = await postgres!.create({ empty: true })
    url = database.config.databaseUrl!
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      await client.query(`create schema other;
        create table other.kysely_migration (name varchar(255) primary key,
          timestamp varchar(255) not null);
        create table other.kysely_migration_lock (id varchar(255) primary key,
          is_locked integer not null default 0);
        insert into other.kysely_migration_lock values ('migration_lock', 0);`)
    } finally {
      await client.end()
    }
  })

  afterEach(async () => {
    await database.drop()
  })

  it('migrates beside another schema holding migration tables', async () => {
    const config = loadConfig({ BURROW_DATABASE_URL: url })
    assert.match(await migrate(config), /applied 001_accounts_tunnels/)
    assert.match(await migrate(config), /is up to date/)
    await (await openStore(config)).close()
  })
})
