/**
 * Deciding on a pinned tool on PostgreSQL while another node records a change of it: the owner
 * approves the definition they saw, the local server changes the tool again in the same moment,
 * and the approval must not take the new definition as approved. A second connection holds the
 * row's update open until the decision is waiting on it, then commits.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import pg from 'pg'
import { openStore } from '../../src/store/open-store.js'
import type { Store } from '../../src/store/store.js'
import { testBackends, type TestDatabase } from '../helpers/test-databases.js'

const def = (hash: string) => ({ hash, bodyHash: `body-${hash}`, definition: `{"v":"${hash}"}` })
const H1 = '1'.repeat(64)
const H2 = '2'.repeat(64)
const H3 = '3'.repeat(64)

const postgres = testBackends().find((b) => b.name === 'postgres')

describe('a decision racing a change of the same tool', { skip: !postgres }, () => {
  let database: TestDatabase
  let store: Store
  let tunnelId: string
  let other: pg.Client

  beforeEach(async () => {
    database = await postgres!.create()
    store = await openStore(database.config)
    const account = await store.createAccount({ email: 'a@example.com', slug: 'acme' })
    tunnelId = (await store.createTunnel({ accountId: account.id, name: 't' })).tunnel.id
    const at = new Date('2026-05-06T07:08:09.000Z')
    await store.toolPins.baseline(tunnelId, [{ name: 'read_file', ...def(H1) }], at)
    await store.toolPins.recordSeen(tunnelId, 'read_file', 'changed', def(H2), at)
    other = new pg.Client({ connectionString: database.config.databaseUrl! })
    await other.connect()
  })

  afterEach(async () => {
    await other.end()
    await store.close()
    await database.drop()
  })

  /** Until `n` statements of this database wait for locks other connections hold. */
  async function someoneWaits(n = 1): Promise<void> {
    for (;;) {
      // Inside a transaction PostgreSQL shows the activity of its first look until told not to.
      await other.query('select pg_stat_clear_snapshot()')
      const { rows } = await other.query<{ n: string }>(
        `select count(*) as n from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock'`,
      )
      if (Number(rows[0]!.n) >= n) return
      await new Promise((r) => setTimeout(r, 20))
    }
  }

  const row = async () =>
    (
      await other.query<{ status: string; approved_hash: string; current_hash: string }>(
        `select status, approved_hash, current_hash from tool_pins where tunnel_id = $1`,
        [tunnelId],
      )
    ).rows[0]!

  for (const expect of [H2, null]) {
    it(`an approval ${expect ? 'of the hash the owner saw' : 'without a hash'} does not approve a definition recorded meanwhile`, async () => {
      // Another node records the next change (H3) and has not committed yet.
      await other.query('begin')
      await other.query(
        `update tool_pins set status = 'changed', current_hash = $2, current_body_hash = $3,
           current_definition = $4 where tunnel_id = $1 and name = 'read_file'`,
        [tunnelId, H3, `body-${H3}`, `{"v":"${H3}"}`],
      )
      const decided = store.toolPins.decide(
        tunnelId,
        'read_file',
        'approved',
        'owner',
        new Date('2026-05-06T07:09:00.000Z'),
        { hash: expect },
      )
      await someoneWaits()
      await other.query('commit')
      const done = await decided
      const after = await row()
      if (expect) {
        assert.equal(done, 'stale', 'the definition changed since the owner saw it')
        assert.deepEqual(after, { status: 'changed', approved_hash: H1, current_hash: H3 })
      } else {
        // Approving "whatever is current" approves the definition current when it is decided.
        assert.equal(done, 'decided')
        assert.deepEqual(after, { status: 'approved', approved_hash: H3, current_hash: H3 })
      }
      // Never approved with a current definition that differs from the approved one: a pin in
      // that state is not compared again by later listings of the same definition.
      assert.ok(after.status !== 'approved' || after.approved_hash === after.current_hash)
    })
  }

  it('two approvals at once are recorded once', async () => {
    await other.query('begin')
    await other.query(`select * from tool_pins where tunnel_id = $1 for update`, [tunnelId])
    const at = new Date('2026-05-06T07:09:00.000Z')
    const decide = (by: string) =>
      store.toolPins.decide(tunnelId, 'read_file', 'approved', by, at, { hash: H2 })
    const both = [decide('tab 1'), decide('tab 2')]
    await someoneWaits(2)
    await other.query('commit')
    assert.deepEqual(await Promise.all(both), ['decided', 'decided'])
    const decisions = await store.toolPins.decisions(tunnelId)
    assert.equal(decisions.length, 1, JSON.stringify(decisions))
    assert.deepEqual(await row(), { status: 'approved', approved_hash: H2, current_hash: H2 })
  })
})
