/**
 * The databases a store contract test runs against: a fresh SQLite file in a temporary
 * directory always, and a fresh PostgreSQL database when `TEST_DATABASE_URL` is set
 * (e.g. postgres://postgres@127.0.0.1:5432/test; it must be allowed to create databases). Each
 * `create()` gives an isolated database and a `drop()` that removes it. Databases rather than
 * schemas: Kysely's migrator introspects every schema of its database, and test files running in
 * parallel would otherwise see (and race with) each other's tables. A PostgreSQL database is
 * copied from a template already migrated by this checkout's migrations (made once, by the first
 * test process to need it): migrating each new database took about twice as long as creating it,
 * for every test of every store contract. `create({ empty: true })` gives one never migrated.
 * A migrated database a test drops goes back, emptied, to the next test of the same process
 * (`spare-databases.ts`) unless the test changed its tables.
 */

import { createHash, randomBytes } from 'node:crypto'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { openStore } from '../../src/store/open-store.js'
import { SpareDatabases } from './spare-databases.js'

/** What `openStore` needs to open one isolated test database. */
export interface TestDatabase {
  readonly config: { readonly databaseUrl: string | null; readonly dataDir: string }
  /** Remove the database and everything in it. */
  drop(): Promise<void>
}

/** Options of `TestBackend.create`. */
export interface CreateOptions {
  /**
   * A database no migration has touched (for tests of migrating itself); otherwise a PostgreSQL
   * database comes migrated (opening it migrates nothing), a SQLite one empty (migrating it is
   * quick).
   */
  readonly empty?: boolean
}

/** A backend to run contract tests against. */
export interface TestBackend {
  readonly name: 'sqlite' | 'postgres'
  create(options?: CreateOptions): Promise<TestDatabase>
}

const sqlite: TestBackend = {
  name: 'sqlite',
  async create() {
    const dataDir = await mkdtemp(join(tmpdir(), 'burrow-store-'))
    return {
      config: { databaseUrl: null, dataDir },
      drop: () => rm(dataDir, { recursive: true, force: true }),
    }
  },
}

function postgres(adminUrl: string): TestBackend {
  const dropDatabase = (name: string) =>
    withClient(adminUrl, async (client) => {
      await client.query(`drop database if exists ${name} with (force)`)
    })
  const renameDatabase = (name: string) =>
    withClient(adminUrl, async (client) => {
      await client.query(
        'select pg_terminate_backend(pid, 5000) from pg_stat_activity where datname = $1',
        [name],
      )
      const renamed = testDatabaseName()
      await client.query(`alter database ${name} rename to ${renamed}`)
      return renamed
    })
  let spares: SpareDatabases | null = null
  return {
    name: 'postgres',
    async create(options: CreateOptions = {}) {
      if (options.empty) {
        const name = testDatabaseName()
        await withClient(adminUrl, (client) => client.query(`create database ${name}`))
        return testDatabase(name, () => dropDatabase(name))
      }
      spares ??= new SpareDatabases(
        (name) => databaseUrl(adminUrl, name),
        renameDatabase,
        dropDatabase,
      )
      const pool = spares
      let name = pool.take()
      if (name === null) {
        name = testDatabaseName()
        const template = await migratedTemplate(adminUrl)
        await withClient(adminUrl, (client) =>
          client.query(`create database ${name} template ${template}`),
        )
        await pool.noteFresh(name)
      }
      const taken = name
      // Given back once: a second drop must not empty it under the test that took it next.
      let given: Promise<void> | null = null
      return testDatabase(taken, () => (given ??= pool.giveBack(taken)))
    },
  }

  function testDatabase(name: string, drop: () => Promise<void>): TestDatabase {
    return { config: { databaseUrl: databaseUrl(adminUrl, name), dataDir: tmpdir() }, drop }
  }
}

function databaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return url.toString()
}

const MIGRATIONS_DIR = fileURLToPath(new URL('../../src/store/migrations/', import.meta.url))

/** This process's migrated template, by admin URL: made or found once. */
const templates = new Map<string, Promise<string>>()

/**
 * The name of a database migrated by this checkout's migrations, to copy test databases from:
 * named by a hash of the migrations' sources, so that a changed migration makes a new one. Made
 * under an advisory lock (test files run in several processes at once), migrated under another
 * name and renamed when done, and closed to connections: a copy fails while anyone is connected
 * to its template.
 */
function migratedTemplate(adminUrl: string): Promise<string> {
  let made = templates.get(adminUrl)
  if (made === undefined) {
    made = makeTemplate(adminUrl)
    templates.set(adminUrl, made)
  }
  return made
}

async function makeTemplate(adminUrl: string): Promise<string> {
  const hash = createHash('sha256')
  for (const file of (await readdir(MIGRATIONS_DIR)).sort()) {
    hash.update(file).update(await readFile(join(MIGRATIONS_DIR, file)))
  }
  const name = `burrow_template_${hash.digest('hex').slice(0, 16)}`
  const client = new pg.Client({ connectionString: adminUrl })
  await client.connect()
  try {
    await client.query(`select pg_advisory_lock(hashtext('burrow test template'))`)
    const found = await client.query('select 1 from pg_database where datname = $1', [name])
    if (found.rowCount === 0) {
      const building = `${name}_${randomBytes(4).toString('hex')}`
      await client.query(`create database ${building}`)
      const store = await openStore({
        databaseUrl: databaseUrl(adminUrl, building),
        dataDir: tmpdir(),
      })
      await store.close()
      await client.query(`alter database ${building} rename to ${name}`)
      await client.query(`alter database ${name} with allow_connections false`)
    }
  } finally {
    await client.end()
  }
  return name
}

function testDatabaseName(): string {
  return `burrow_test_${randomBytes(6).toString('hex')}`
}

async function withClient<T>(url: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await run(client)
  } finally {
    await client.end()
  }
}

/** SQLite, and PostgreSQL when `TEST_DATABASE_URL` is set. */
export function testBackends(): TestBackend[] {
  const url = process.env.TEST_DATABASE_URL
  return url ? [sqlite, postgres(url)] : [sqlite]
}
