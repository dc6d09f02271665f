/**
 * The order of events around failed writes, which a real database cannot be made to produce on
 * demand (a write in flight when the database goes away, a commit whose answer is lost, a write
 * that never returns). The database is the outside world here: a table that stores what it is
 * given and fails, stalls or loses its answer when told to. The queue over real SQLite and
 * PostgreSQL is tested in usage-counters.test.ts.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { CounterWriteQueue, type LiveCounter } from '../../src/quota/counter-write-queue.js'
import type { UsageCounterWrite } from '../../src/quota/usage-counter-table.js'

const clock = () => new Date('2099-03-10T12:00:00.000Z')

/** A table that keeps values by tunnel and metric, and fails as it is told. */
class ScriptedTable {
  readonly stored = new Map<string, number>()
  writes = 0
  /** Milliseconds each write takes. */
  delayMs = 0
  /** Writes fail while down (decided when the write ends). */
  down = false
  /** How many of the next writes fail. */
  failNext = 0
  /** The next write commits, then reports a failure (its answer was lost). */
  loseNextAnswer = false
  /** Writes wait for this before they end. */
  stall: Promise<void> | null = null

  async write(writes: readonly UsageCounterWrite[]): Promise<void> {
    this.writes++
    if (this.delayMs > 0) await sleep(this.delayMs)
    if (this.stall) await this.stall
    if (this.down) throw new Error('database down')
    if (this.failNext > 0) {
      this.failNext--
      throw new Error('database refused')
    }
    for (const w of writes) {
      const key = `${w.tunnelId} ${w.metric}`
      this.stored.set(key, w.set !== undefined ? w.set + w.delta : this.value(key) + w.delta)
    }
    if (this.loseNextAnswer) {
      this.loseNextAnswer = false
      throw new Error('connection lost after the commit')
    }
  }

  value(key: string): number {
    return this.stored.get(key) ?? 0
  }
}

function counter(tunnelId = 'tun_a'): LiveCounter {
  return { period: '2099-03', tunnelId, metric: 'tool_calls', durable: 0, value: 0, stored: false }
}

/** Count `n` on `c`, as MemoryUsageCounters does. */
function add(queue: CounterWriteQueue, c: LiveCounter, n: number): void {
  c.value += n
  queue.add(c, n)
}

/** Wait (up to 5 s) until `check` holds. */
async function until(check: () => boolean, what: string): Promise<void> {
  const end = Date.now() + 5000
  while (!check()) {
    if (Date.now() > end) assert.fail(`never: ${what}`)
    await sleep(5)
  }
}

describe('CounterWriteQueue', () => {
  it('keeps the increments of a failed write when a set queued behind it fails too', async () => {
    const table = new ScriptedTable()
    table.delayMs = 40
    const queue = new CounterWriteQueue(table, clock, { flushMs: 10 })
    const c = counter()
    add(queue, c, 10)
    await until(() => table.writes === 1, 'the increments are being written')
    table.down = true
    c.value = 0
    const setting = queue.set(c, 0)
    await assert.rejects(setting, /writing to the database failed/)
    // Both failed: the set is undone and the ten calls count again.
    assert.equal(c.value, 10)
    table.down = false
    await until(() => table.value('tun_a tool_calls') === 10, 'the ten calls are stored')
    assert.equal(c.durable, 10)
    await queue.drain()
  })

  it('stores whole values, so a write repeated after a lost answer counts nothing twice', async () => {
    const table = new ScriptedTable()
    const queue = new CounterWriteQueue(table, clock, { flushMs: 10 })
    const c = counter()
    table.loseNextAnswer = true
    add(queue, c, 5)
    await until(() => table.writes >= 2, 'the write is repeated')
    await until(() => c.durable === 5, 'the repeat is acknowledged')
    assert.equal(table.value('tun_a tool_calls'), 5)
    add(queue, c, 1)
    await until(() => c.durable === 6, 'the next call is stored')
    assert.equal(table.value('tun_a tool_calls'), 6)
    await queue.drain()
  })

  it('writes a set at once after the failed write it was queued behind', async () => {
    const table = new ScriptedTable()
    table.delayMs = 30
    table.failNext = 1
    // Increments alone would wait an hour: the set must not.
    const queue = new CounterWriteQueue(table, clock, { flushMs: 3_600_000 })
    const a = counter('tun_a')
    const b = counter('tun_b')
    const first = queue.set(a, 4)
    await until(() => table.writes === 1, 'the first set is being written')
    b.value = 7
    const second = queue.set(b, 7)
    await assert.rejects(first, /writing to the database failed/)
    await second
    assert.equal(table.value('tun_b tool_calls'), 7)
    assert.equal(table.stored.has('tun_a tool_calls'), false, 'the failed set is not retried')
    await queue.drain()
  })

  it('schedules nothing once drained, whatever failed', async () => {
    const table = new ScriptedTable()
    table.down = true
    const queue = new CounterWriteQueue(table, clock, { flushMs: 5 })
    const c = counter()
    add(queue, c, 2)
    const setting = queue.set(counter('tun_b'), 3)
    setting.catch(() => {})
    const unwritten = await queue.drain()
    // The refused set was undone: only tun_a's two calls are lost.
    assert.deepEqual(
      unwritten.map((u) => [u.tunnelId, u.value, u.stored]),
      [['tun_a', 2, 0]],
    )
    const writes = table.writes
    assert.equal(writes, 2, 'one attempt and one more')
    await sleep(100)
    assert.equal(table.writes, writes, 'no write after drain()')
  })

  it('gives up on a write that never returns after the drain deadline, and says what is lost', async () => {
    const table = new ScriptedTable()
    table.stall = new Promise(() => {})
    const queue = new CounterWriteQueue(table, clock, { flushMs: 1, drainDeadlineMs: 50 })
    const c = counter()
    add(queue, c, 9)
    await until(() => table.writes === 1, 'the write is in flight')
    const unwritten = await queue.drain()
    assert.deepEqual(
      unwritten.map((u) => [u.tunnelId, u.metric, u.value, u.stored]),
      [['tun_a', 'tool_calls', 9, 0]],
    )
  })
})
