// The open streams of a mux by id: slots chosen by id, with the rare taken slot spilling over.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { MuxStream } from '../../src/mux/mux-stream.js'
import { idleHost as host } from './idle-host.js'
import { StreamTable } from '../../src/mux/stream-table.js'

const stream = (id: number) => new MuxStream(id, host)

/** Ids this many apart on one side of a mux want the same slot. */
const SAME_SLOT = 2 * 1024

describe('StreamTable', () => {
  it('finds, counts and forgets streams of either side', () => {
    const table = new StreamTable()
    const odd = [1, 3, 5].map(stream)
    const even = [2, 4, 6].map(stream)
    for (const s of [...odd, ...even]) table.set(s)
    assert.equal(table.size, 6)
    for (const s of [...odd, ...even]) {
      assert.equal(table.get(s.id), s)
      assert.equal(table.has(s.id), true)
    }
    assert.equal(table.get(7), undefined)
    assert.equal(table.delete(3), true)
    assert.equal(table.delete(3), false)
    assert.equal(table.get(3), undefined)
    assert.equal(table.size, 5)
  })

  it('takes a long run of short-lived streams without growing', () => {
    const table = new StreamTable()
    const open: MuxStream[] = []
    for (let id = 1; id < 20_000; id += 2) {
      const s = stream(id)
      table.set(s)
      open.push(s)
      if (open.length > 50) assert.equal(table.delete(open.shift()!.id), true)
    }
    assert.equal(table.size, 50)
    assert.deepEqual(
      table
        .values()
        .map((s) => s.id)
        .sort((a, b) => a - b),
      open.map((s) => s.id),
    )
    // Fifty at once fit in a small array; once the last leaves, it is gone.
    assert.ok(table.slotCount > 0 && table.slotCount <= 128, `${table.slotCount} slots`)
    for (const s of open) table.delete(s.id)
    assert.equal(table.size, 0)
    assert.equal(table.slotCount, 0)
  })

  it('holds no slots while empty, and keeps a long stream aside rather than growing for it', () => {
    const table = new StreamTable()
    assert.equal(table.slotCount, 0)
    const long = stream(2)
    table.set(long)
    // Short calls one at a time beside a long stream (an SSE stream the agent keeps open).
    for (let id = 4; id < 40_000; id += 2) {
      table.set(stream(id))
      assert.equal(table.get(long.id), long)
      assert.equal(table.delete(id), true)
    }
    assert.equal(table.size, 1)
    assert.ok(table.slotCount <= 8, `${table.slotCount} slots`)
    assert.equal(table.delete(long.id), true)
    assert.equal(table.slotCount, 0)
  })

  it('keeps a stream whose slot is taken by one still open', () => {
    const table = new StreamTable()
    const old = stream(1)
    const next = stream(1 + SAME_SLOT)
    const third = stream(1 + 2 * SAME_SLOT)
    table.set(old)
    table.set(next)
    table.set(third)
    assert.equal(table.size, 3)
    assert.equal(table.get(old.id), old)
    assert.equal(table.get(next.id), next)
    assert.equal(table.get(third.id), third)
    assert.deepEqual(
      table
        .values()
        .map((s) => s.id)
        .sort((a, b) => a - b),
      [old.id, next.id, third.id],
    )
    // The slot's holder leaves first: the others are still found, and a new one takes the slot.
    assert.equal(table.delete(old.id), true)
    assert.equal(table.get(next.id), next)
    const fourth = stream(1 + 3 * SAME_SLOT)
    table.set(fourth)
    assert.equal(table.get(fourth.id), fourth)
    assert.equal(table.delete(next.id), true)
    assert.equal(table.delete(third.id), true)
    assert.equal(table.delete(fourth.id), true)
    assert.equal(table.size, 0)
    assert.deepEqual(table.values(), [])
  })

  it('replaces a stream set again under the same id', () => {
    const table = new StreamTable()
    const first = stream(9)
    const again = stream(9)
    table.set(first)
    table.set(again)
    assert.equal(table.size, 1)
    assert.equal(table.get(9), again)
    const spill = stream(9 + SAME_SLOT)
    table.set(spill)
    table.set(stream(9 + SAME_SLOT))
    assert.equal(table.size, 2)
  })

  it('empties on clear, and lists a copy the caller may change the table under', () => {
    const table = new StreamTable()
    for (const id of [1, 3, 1 + SAME_SLOT]) table.set(stream(id))
    const listed = table.values()
    for (const s of listed) table.delete(s.id)
    assert.equal(listed.length, 3)
    assert.equal(table.size, 0)
    for (const id of [1, 1 + SAME_SLOT]) table.set(stream(id))
    table.clear()
    assert.equal(table.size, 0)
    assert.equal(table.get(1), undefined)
    assert.equal(table.get(1 + SAME_SLOT), undefined)
  })
})
