/**
 * The history writer while the database is down: a batch is given up after a few statements,
 * not tried row by row (each row would wait its own timeout); while it stalls (bounded-pg-pool),
 * a write stops at its first failed statement, the batches after it waiting for the next write,
 * and the batch itself too when it never reached the database. Before, every queued batch (up
 * to 20) cost two statements each waiting the full bound, and closing burrowd waited for all of
 * them, minutes past any stop timeout.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { silentLogger } from '@burrow/protocol'
import type { KyselyPlugin, PluginTransformQueryArgs } from 'kysely'
import { CallHistoryWriter } from '../../src/quota/call-history.js'
import { openStore } from '../../src/store/open-store.js'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** A plugin that runs `check` before every statement, which may throw to fail it unsent. */
function failing(check: (args: PluginTransformQueryArgs) => void): KyselyPlugin {
  return {
    transformQuery(args) {
      check(args)
      return args.node
    },
    async transformResult(args) {
      return args.result
    },
  }
}

describe('the history writer during a database outage', () => {
  it('gives up on a batch after a few statements', async () => {
    const store = await openStore({
      databaseUrl: null,
      dataDir: mkdtempSync(join(tmpdir(), 'rev-')),
    })
    let statements = 0
    const down = failing(() => {
      statements++
      throw new Error('connect ECONNREFUSED 127.0.0.1:5432')
    })
    const writer = new CallHistoryWriter(store.db.withPlugin(down), {
      log: silentLogger,
      flushMs: 60_000,
    })
    for (let i = 0; i < 500; i++) {
      writer.record({
        tunnelId: 'tun_x',
        at: new Date(),
        method: 'tools/call',
        tool: 't',
        status: 200,
        policyCode: null,
        durationMs: 1,
      })
    }
    await writer.close()
    await store.close()
    assert.ok(statements <= 2, `${statements} statements for one batch while the database is down`)
  })

  it('stops at the first stalled statement, keeping what it never sent', async () => {
    const store = await openStore({
      databaseUrl: null,
      dataDir: mkdtempSync(join(tmpdir(), 'rev-')),
    })
    const account = await store.createAccount({ email: 's@example.com', slug: 'stall' })
    const tunnelId = (await store.createTunnel({ accountId: account.id, name: 's' })).tunnel.id
    let stalled = true
    let statements = 0
    const stall = failing(() => {
      statements++
      // pg-pool's answer when no connection was had in time: nothing was sent.
      if (stalled) throw new Error('timeout exceeded when trying to connect')
    })
    const writer = new CallHistoryWriter(store.db.withPlugin(stall), {
      log: silentLogger,
      flushMs: 60_000,
    })
    try {
      for (let i = 0; i < 1500; i++) {
        writer.record({
          tunnelId,
          at: new Date(),
          method: 'tools/call',
          tool: 't',
          status: 200,
          policyCode: null,
          durationMs: 1,
        })
      }
      await writer.flush()
      assert.equal(statements, 1, 'one statement while the database stalls')
      assert.equal(writer.queued, 1500)
      assert.equal(writer.dropped, 0)
      stalled = false
      await writer.flush()
      const written = await store.db
        .selectFrom('call_history')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
      assert.equal(Number(written.n), 1500)
      // Closing during a stall tries once, and counts what it could not write (a writer of its
      // own: a writer runs the statement it compiled again, past the plugin).
      stalled = true
      statements = 0
      const closing = new CallHistoryWriter(store.db.withPlugin(stall), {
        log: silentLogger,
        flushMs: 60_000,
      })
      for (let i = 0; i < 1500; i++) {
        closing.record({
          tunnelId,
          at: new Date(),
          method: 'tools/call',
          tool: 't',
          status: 200,
          policyCode: null,
          durationMs: 1,
        })
      }
      await closing.close()
      assert.equal(statements, 1)
      assert.equal(closing.dropped, 1500)
    } finally {
      await writer.close()
      await store.close()
    }
  })

  it('stops when the database stalls while it writes again the rows of a refused batch', async () => {
    const store = await openStore({
      databaseUrl: null,
      dataDir: mkdtempSync(join(tmpdir(), 'rev-')),
    })
    const account = await store.createAccount({ email: 'g@example.com', slug: 'gone' })
    const tunnelId = (await store.createTunnel({ accountId: account.id, name: 'g' })).tunnel.id
    // The batch is refused for a deleted tunnel's rows (the foreign key), the tunnels are read,
    // and then the database stalls: no connection in time, so nothing after that is sent.
    let stalling = true
    let selected = false
    const stall = failing((args) => {
      if (args.node.kind === 'SelectQueryNode') selected = true
      else if (selected && stalling) throw new Error('timeout exceeded when trying to connect')
    })
    const writer = new CallHistoryWriter(store.db.withPlugin(stall), {
      log: silentLogger,
      flushMs: 60_000,
      batchSize: 10,
    })
    const record = (tunnel: string) => ({
      tunnelId: tunnel,
      at: new Date(),
      method: 'tools/call',
      tool: 't',
      status: 200,
      policyCode: null,
      durationMs: 1,
    })
    try {
      for (let i = 0; i < 10; i++) writer.record(record(i % 2 === 0 ? tunnelId : 'tun_deleted'))
      for (let i = 0; i < 10; i++) writer.record(record(tunnelId))
      await writer.flush()
      assert.equal(writer.dropped, 0, 'none of the records of the tunnel that exists is dropped')
      assert.equal(writer.queued, 15, 'what was never sent waits for the next write')
      stalling = false
      await writer.flush()
      const written = await store.db
        .selectFrom('call_history')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
      assert.equal(Number(written.n), 15)
    } finally {
      await writer.close()
      await store.close()
    }
  })
})
