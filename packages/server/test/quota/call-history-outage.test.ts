/**
 * The history writer while the database is down: a batch is given up after a few statements,
 * not tried row by row (each row would wait its own timeout).
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { silentLogger } from '@burrow/protocol'
import type { KyselyPlugin } from 'kysely'
import { CallHistoryWriter } from '../../src/quota/call-history.js'
import { openStore } from '../../src/store/open-store.js'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

describe('the history writer during a database outage', () => {
  it('gives up on a batch after a few statements', async () => {
    const store = await openStore({
      databaseUrl: null,
      dataDir: mkdtempSync(join(tmpdir(), 'rev-')),
    })
    let statements = 0
    const down: KyselyPlugin = {
      transformQuery(args) {
        statements++
        throw new Error('connect ECONNREFUSED 127.0.0.1:5432')
        return args.node
      },
      async transformResult(args) {
        return args.result
      },
    }
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
})
