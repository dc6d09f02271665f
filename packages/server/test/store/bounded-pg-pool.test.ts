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
import { Kysely, PostgresDialect, sql } from 'kysely'
import {
  boundedPgPool,
  QUERY_TIMEOUT_MESSAGE,
  TIMED_OUT_BEFORE_MESSAGE,
} from '../../src/store/bounded-pg-pool.js'
import { DatabaseUnavailableError } from '../../src/store/database-unavailable-error.js'
import { isDatabaseStalled, neverSent } from '../../src/store/database-stalled.js'
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

  it('has the server stop a statement whose caller stopped waiting for it', async () => {
    const pool = boundedPgPool(url!, 300)
    pool.bound()
    const probe = `bounded_pool_probe_${process.pid}_${Date.now()}`
    const running = () =>
      query(
        pool,
        `select pid from pg_stat_activity where query like '%${probe}%' and pid <> pg_backend_pid()`,
      )
    try {
      await assert.rejects(query(pool, `select pg_sleep(30), '${probe}'`), (err: Error) => {
        assert.equal(err.message, QUERY_TIMEOUT_MESSAGE)
        return true
      })
      // Before, the sleep ran its 30 s at the server after the connection was closed, holding a
      // backend (and whatever the statement locked): PostgreSQL reads a closed connection only
      // when the statement ends, unless asked to look for one while it runs. Watched until the
      // statement would have ended by itself.
      const ends = Date.now() + 25_000
      while ((await running()).length > 0 && Date.now() < ends) {
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      assert.deepEqual(await running(), [])
    } finally {
      await pool.end()
    }
  })

  it('refuses at once any further query on a connection whose query timed out', async () => {
    const pool = boundedPgPool(url!, 300)
    pool.bound()
    try {
      const client = await pool.connect()
      try {
        await assert.rejects(client.query('select pg_sleep(5)', []), (err: Error) => {
          assert.equal(err.message, QUERY_TIMEOUT_MESSAGE)
          return true
        })
        // Kysely's rollback of a transaction that failed so: queued behind the sleep, it waited
        // for it (and timed out again, holding the request for twice the bound), and a
        // statement run after a timed-out one inside a transaction could commit with it.
        await assert.rejects(client.query('rollback', []), (err: Error) => {
          assert.equal(err.message, TIMED_OUT_BEFORE_MESSAGE)
          assert.ok(isDatabaseStalled(err))
          return true
        })
      } finally {
        client.release()
      }
      assert.deepEqual(await query(pool, 'select 1 as one'), [{ one: 1 }])
    } finally {
      await pool.end()
    }
  })

  it('fails a Kysely transaction whose statement timed out, committing nothing', async () => {
    const pool = boundedPgPool(url!, 1000)
    const db = new Kysely<Record<string, never>>({
      dialect: new PostgresDialect({ pool }),
    })
    try {
      await sql`drop table if exists bounded_pool_probe_kept`.execute(db)
      await sql`create table bounded_pool_probe_kept (n int)`.execute(db)
      pool.bound()
      // A statement after a timed-out one, its failure caught inside the transaction: it waited
      // behind the sleep, ran once the sleep ended, and committed with it.
      await assert.rejects(
        db.transaction().execute(async (trx) => {
          await sql`select pg_sleep(1.5)`.execute(trx).catch(() => {})
          await sql`insert into bounded_pool_probe_kept values (1)`.execute(trx)
        }),
        (err: Error) => {
          assert.ok(isDatabaseStalled(err), err.message)
          return true
        },
      )
      const rows = await sql<{ n: number }>`select n from bounded_pool_probe_kept`.execute(db)
      assert.deepEqual(rows.rows, [])
    } finally {
      await sql`drop table if exists bounded_pool_probe_kept`.execute(db).catch(() => {})
      await db.destroy()
    }
  })

  it('survives a connection the server drops under a running query', async () => {
    const pool = boundedPgPool(url!, 5000)
    pool.bound()
    try {
      const client = await pool.connect()
      try {
        const pid = (await client.query<{ pid: number }>('select pg_backend_pid() as pid', []))
          .rows[0]!.pid
        // Its failure is taken at once: it may come before the termination's own answer.
        const sleeping = client.query('select pg_sleep(5)', []).then(
          () => null,
          (err: Error) => err,
        )
        // A restart, a failover or an operator ends the backend: pg emitted 'error' on the
        // client, which nothing listened to while it was lent out, and the process crashed.
        while (
          (
            await query(
              pool,
              `select 1 from pg_stat_activity where pid = ${pid} and query like 'select pg_sleep%'`,
            )
          ).length === 0
        ) {
          await new Promise((resolve) => setImmediate(resolve))
        }
        await query(pool, `select pg_terminate_backend(${pid})`)
        // Answered 503 like a stall: trying again shortly is what the caller should do.
        const failure = await sleeping
        assert.ok(failure !== null)
        assert.ok(isDatabaseStalled(failure), failure.message)
        // Settles once the close that follows the server's error was seen.
        await assert.rejects(client.query('select 1', []))
      } finally {
        client.release()
      }
      assert.deepEqual(await query(pool, 'select 1 as one'), [{ one: 1 }])
    } finally {
      await pool.end()
    }
  })

  it('counts a database that is not there as unavailable, and a refused statement not', async () => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const closedPort = (closed.address() as AddressInfo).port
    await new Promise<void>((resolve) => closed.close(() => resolve()))
    const away = boundedPgPool(`postgres://postgres@127.0.0.1:${closedPort}/test`, 5000)
    try {
      // PostgreSQL restarting: the connection is refused, and no statement was sent.
      await assert.rejects(away.connect(), (err: Error) => {
        assert.ok(isDatabaseStalled(err), err.message)
        assert.ok(neverSent(err))
        return true
      })
    } finally {
      await away.end()
    }
    const pool = boundedPgPool(url!, 5000)
    pool.bound()
    try {
      // What the database refuses is the request's failure, not the database's.
      for (const statement of ['select nonsense from', 'select 1/0']) {
        await assert.rejects(query(pool, statement), (err: Error) => {
          assert.ok(!isDatabaseStalled(err), err.message)
          return true
        })
      }
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
