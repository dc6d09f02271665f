/**
 * The databases a store contract test runs against: a fresh SQLite file in a temporary
 * directory always, and a fresh PostgreSQL database when `TEST_DATABASE_URL` is set
 * (e.g. postgres://postgres@127.0.0.1:5432/test; it must be allowed to create databases). Each
 * `create()` gives an isolated database and a `drop()` that removes it. Databases rather than
 * schemas: Kysely's migrator introspects every schema of its database, and test files running in
 * parallel would otherwise see (and race with) each other's tables.
 */

import { randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'

/** What `openStore` needs to open one isolated test database. */
export interface TestDatabase {
  readonly config: { readonly databaseUrl: string | null; readonly dataDir: string }
  /** Remove the database and everything in it. */
  drop(): Promise<void>
}

/** A backend to run contract tests against. */
export interface TestBackend {
  readonly name: 'sqlite' | 'postgres'
  create(): Promise<TestDatabase>
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
  return {
    name: 'postgres',
    async create() {
      const name = `burrow_test_${randomBytes(6).toString('hex')}`
      await withClient(adminUrl, (client) => client.query(`create database ${name}`))
      const url = new URL(adminUrl)
      url.pathname = `/${name}`
      return {
        config: { databaseUrl: url.toString(), dataDir: tmpdir() },
        drop: () =>
          withClient(adminUrl, (client) =>
            client.query(`drop database if exists ${name} with (force)`),
          ),
      }
    },
  }
}

async function withClient(
  url: string,
  run: (client: pg.Client) => Promise<unknown>,
): Promise<void> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await run(client)
  } finally {
    await client.end()
  }
}

/** SQLite, and PostgreSQL when `TEST_DATABASE_URL` is set. */
export function testBackends(): TestBackend[] {
  const url = process.env.TEST_DATABASE_URL
  return url ? [sqlite, postgres(url)] : [sqlite]
}
