import assert from 'node:assert/strict'
import { test } from 'node:test'
import { medianRows } from '../../bench/median-rows.js'
import type { Row } from '../../bench/report.js'

const row = (id: string | undefined, value: number | null, extra: Partial<Row> = {}): Row => ({
  ...(id !== undefined ? { id } : {}),
  name: `cell ${id ?? 'without id'}`,
  concurrency: 50,
  unit: 'calls/s',
  value,
  ...extra,
})

test('one round is returned as it is', () => {
  const rows = [row('a', 10), row(undefined, 3)]
  assert.deepEqual(medianRows([rows]), rows)
  assert.deepEqual(medianRows([]), [])
})

test('each row is the whole row of the round with the median value, every value in its note', () => {
  const rounds = [
    [row('a', 300, { p50Ms: 3 }), row('b', 5, { p50Ms: 50 })],
    [row('a', 100, { p50Ms: 1 }), row('b', 7, { p50Ms: 70 })],
    [row('a', 200, { p50Ms: 2 }), row('b', 6, { p50Ms: 60, note: 'first error: x' })],
  ]
  const [a, b] = medianRows(rounds)
  assert.equal(a!.value, 200)
  assert.equal(a!.p50Ms, 2)
  assert.equal(a!.note, 'median of 3 rounds (300 · 100 · 200 calls/s)')
  assert.equal(b!.value, 6)
  assert.equal(b!.p50Ms, 60)
  assert.equal(b!.note, 'median of 3 rounds (5 · 7 · 6 calls/s); first error: x')
})

test('an even count takes the lower middle; rows are kept in the first round order', () => {
  const rounds = [
    [row('a', 4), row('b', 1)],
    [row('b', 2), row('a', 1)],
  ]
  const out = medianRows(rounds)
  assert.deepEqual(
    out.map((r) => [r.id, r.value]),
    [
      ['a', 1],
      ['b', 1],
    ],
  )
})

test('a round in which a cell could not run is left out of its median', () => {
  const rounds = [
    [row('a', null, { note: 'skipped: sshd not found' })],
    [row('a', 8)],
    [row('a', 9)],
  ]
  const [a] = medianRows(rounds)
  assert.equal(a!.value, 8)
  assert.equal(a!.note, 'median of 2 rounds (8 · 9 calls/s)')
  const never = medianRows([[row('b', null, { note: 'skipped' })], [row('b', null)]])
  assert.equal(never[0]!.value, null)
  assert.equal(never[0]!.note, 'skipped')
})
