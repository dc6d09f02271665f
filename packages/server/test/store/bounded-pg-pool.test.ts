/**
 * The PostgreSQL pool's bounds, against a real PostgreSQL (TEST_DATABASE_URL): a connection that
 * is not had in time fails, a query fails once the pool is bounded (not before: migrations may
 * run long), and a connection whose query timed out is not handed out again, where the next
 * query would wait behind the one still running. Found by a hostile review: a PostgreSQL that
 * accepted connections and never answered held `burrowd serve` at start for ever, and a stalled
 * one every request needing it.
 */
import assert from 'node:assert/strict'
import { createServer, type AddressInfo, type Socket } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { boundedPgPool, QUERY_TIMEOUT_MESSAGE } from '../../src/store/bounded-pg-pool.js'
import { DatabaseUnavailableError } from '../../src/store/database-unavailable-error.js'
import { isDatabaseStalled } from '../../src/store/database-stalled.js'
import { openStore } from '../../src/store/open-store.js'
import { startFreezableProxy } from '../helpers/freezable-proxy.js'

const url = process.env.TEST_DATABASE_URL

/** Run `sql` on a connection of `pool`, released after; its rows. */
async function query(
  pool: ReturnType<typeof boundedPgPool>,
  sql: string,
): Promise<Array<Record<string, unknown>>> {
  const client = await pool.connect()
  try {
    return (await client.query<Record<string, unknown>>(sql, [])).rows
  } finally {
    client.release()
  }
}

describe('the bounded PostgreSQL pool', { skip: !url && 'needs TEST_DATABASE_URL' }, () => {
  const held: Socket[] = []
  let silentPort: number
  let silent: ReturnType<typeof createServer>

  before(async () => {
    // Accepts connections and never answers.
    silent = createServer((socket) => held.push(socket))
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    silentPort = (silent.address() as AddressInfo).port
  })

  after(async () => {
    for (const socket of held) socket.destroy()
    await new Promise<void>((resolve) => silent.close(() => resolve()))
  })

  it('lets a query run long until bounded, then fails it and closes its connection', async () => {
    const pool = boundedPgPool(url!, 500)
    try {
      // Unbounded (migrations): a query longer than the bound completes.
      assert.deepEqual(await query(pool, 'select 1 as one from pg_sleep(1)'), [{ one: 1 }])
      pool.bound()
      const pid = (await query(pool, 'select pg_backend_pid() as pid'))[0]!.pid
      await assert.rejects(query(pool, 'select pg_sleep(5)'), (err: Error) => {
        assert.equal(err.message, QUERY_TIMEOUT_MESSAGE)
        assert.ok(isDatabaseStalled(err))
        return true
      })
      // The next query gets a connection of its own, not the one still sleeping (it would wait
      // behind the sleep and time out too), and answers at once, repeatedly and concurrently.
      const rows = await Promise.all(
        Array.from({ length: 12 }, () => query(pool, 'select pg_backend_pid() as pid')),
      )
      assert.equal(rows.length, 12)
      assert.ok(rows.every((r) => typeof r[0]!.pid === 'number'))
      assert.equal(typeof pid, 'number')
    } finally {
      await pool.end()
    }
  })

  it('fails a connection to a server that never answers', async () => {
    const pool = boundedPgPool(`postgres://postgres@127.0.0.1:${silentPort}/test`, 300)
    try {
      await assert.rejects(pool.connect(), (err: Error) => {
        assert.ok(isDatabaseStalled(err), err.message)
        return true
      })
    } finally {
      await pool.end()
    }
  })

  it('makes openStore fail, not wait for ever, on a server that never answers', async () => {
    await assert.rejects(
      openStore({
        databaseUrl: `postgres://postgres@127.0.0.1:${silentPort}/test`,
        dataDir: '/nonexistent',
        databaseTimeoutSecs: 1,
      }),
      (err: Error) => {
        assert.ok(err instanceof DatabaseUnavailableError)
        assert.match(err.message, /timeout/i)
        return true
      },
    )
  })

  it('fails queries while the server stalls, and serves again once it answers', async () => {
    const target = new URL(url!)
    const proxy = await startFreezableProxy(target.hostname, Number(target.port || 5432))
    const through = new URL(url!)
    through.port = String(proxy.port)
    const pool = boundedPgPool(through.toString(), 500)
    pool.bound()
    try {
      assert.deepEqual(await query(pool, 'select 1 as one'), [{ one: 1 }])
      proxy.freeze()
      // Queries on kept connections, and ones needing a new connection, all fail.
      const stalled = await Promise.allSettled(
        Array.from({ length: 15 }, () => query(pool, 'select 1 as one')),
      )
      for (const result of stalled) {
        assert.equal(result.status, 'rejected')
        assert.ok(isDatabaseStalled(result.reason as Error), String(result.reason))
      }
      proxy.thaw()
      assert.deepEqual(await query(pool, 'select 1 as one'), [{ one: 1 }])
    } finally {
      await pool.end()
      await proxy.close()
    }
  })
})
