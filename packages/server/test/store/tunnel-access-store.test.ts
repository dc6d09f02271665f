/**
 * `TunnelAccessStore#set` beside another process writing the same SQLite file (the operator's
 * `burrowd tunnel create` beside `burrowd serve`): it waits for the other's write to commit
 * instead of failing with "database is locked". A transaction that read before it wrote failed
 * at once when the other process committed in between (SQLite gives such a transaction no busy
 * wait: its snapshot is stale).
 */
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { DEFAULT_SQLITE_FILE } from '../../src/store/database-target.js'
import { openStore } from '../../src/store/open-store.js'
import type { Store } from '../../src/store/store.js'
import { TunnelAccessStore } from '../../src/store/tunnel-access-store.js'
import { testBackends, type TestDatabase } from '../helpers/test-databases.js'

const sqlite = testBackends().find((b) => b.name === 'sqlite')!

/**
 * Another process that takes the file's write lock, writes, and commits `holdMs` later on its own
 * (this process waits for the lock synchronously meanwhile); resolves once it holds the lock.
 */
async function otherWriter(file: string, holdMs: number) {
  const child = spawn(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `import Database from 'better-sqlite3'
const db = new Database(${JSON.stringify(file)})
db.pragma('busy_timeout = 5000')
db.exec('begin immediate')
db.exec("update accounts set plan = plan")
process.stdout.write('locked\\n')
setTimeout(() => { db.exec('commit'); db.close(); process.exit(0) }, ${holdMs})`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'], cwd: process.cwd() },
  )
  const exited = once(child, 'exit')
  await once(child.stdout, 'data')
  return { exited }
}

describe('tunnel access settings beside another writer (SQLite)', () => {
  let database: TestDatabase
  let store: Store

  beforeEach(async () => {
    database = await sqlite.create()
    store = await openStore(database.config)
  })
  afterEach(async () => {
    await store.close()
    await database.drop()
  })

  it('waits for the other process to commit, then stores the settings', async () => {
    const account = await store.createAccount({ email: 'a@example.com', slug: 'acme' })
    const { tunnel } = await store.createTunnel({ accountId: account.id, name: 'files' })
    const access = new TunnelAccessStore(store.db)
    // A read first, as the settings of a tunnel are read before they are set: the connection
    // has seen the database before the other process writes.
    assert.equal((await access.get(tunnel.id)).mode, 'oauth')
    const other = await otherWriter(join(database.config.dataDir, DEFAULT_SQLITE_FILE), 300)
    // The other process commits while this one waits for the lock (busy_timeout).
    await access.set(tunnel.id, { mode: 'public', allowIps: [] })
    await other.exited
    assert.equal((await access.get(tunnel.id)).mode, 'public')
  })
})
