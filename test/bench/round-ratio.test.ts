import assert from 'node:assert/strict'
import { test } from 'node:test'
import { medianRows } from '../../bench/median-rows.js'
import type { Row } from '../../bench/report.js'
import { formatRatio, roundRatio, roundsNote, valueRatio } from '../../bench/round-ratio.js'

const row = (id: string, value: number | null): Row => ({
  id,
  name: `cell ${id}`,
  concurrency: 50,
  unit: 'calls/s',
  value,
})

/** Burrow's and direct's SDK rows of three rounds of one run (2026-11-27, 13:19). */
const ROUNDS = [
  [row('burrow', 3041), row('direct', 3253)],
  [row('burrow', 2802), row('direct', 3198)],
  [row('burrow', 2985), row('direct', 3356)],
]
const share = (rows: readonly Row[], rounds: readonly (readonly Row[])[]) =>
  roundRatio(rows, rounds, (byId) => valueRatio(byId('burrow'), byId('direct')))

test('with rounds, a ratio is the median of the ratios within each round', () => {
  const rows = medianRows(ROUNDS)
  // The median rows come from different rounds (2,985 of the third, 3,253 of the first): 0.918.
  assert.equal((rows[0]!.value! / rows[1]!.value!).toFixed(3), '0.918')
  const ratio = share(rows, ROUNDS)!
  assert.deepEqual(
    ratio.rounds.map((r) => r.toFixed(3)),
    ['0.935', '0.876', '0.889'],
  )
  assert.equal(ratio.value.toFixed(3), '0.889')
  // The third round's: its two figures are the ones to show beside it.
  assert.equal(ratio.round, 2)
  assert.equal(roundsNote(ratio), '; rounds 0.93 · 0.88 · 0.89')
})

test('of an even count of rounds the lower middle ratio is read', () => {
  const rounds = [
    [row('burrow', 4), row('direct', 10)],
    [row('burrow', 9), row('direct', 10)],
    [row('burrow', 6), row('direct', 10)],
    [row('burrow', 7), row('direct', 10)],
  ]
  assert.equal(share(medianRows(rounds), rounds)!.value, 0.6)
})

test('a run without rounds reads the ratio of its rows; one round, that round', () => {
  const rows = [row('burrow', 50), row('direct', 100)]
  assert.deepEqual(share(rows, []), { value: 0.5, rounds: [], round: null })
  assert.equal(roundsNote(share(rows, [])), '')
  // The median rows say 50 over 100; the one round that measured both cells says 60 over 80.
  const rounds = [[row('burrow', 60), row('direct', 80)], [row('direct', 100)]]
  assert.deepEqual(share(rows, rounds), { value: 0.75, rounds: [], round: 0 })
})

test('a round that could not measure both cells is left out', () => {
  const rounds = [
    [row('burrow', null), row('direct', 100)],
    [row('burrow', 80), row('direct', 100)],
    [row('burrow', 90), row('direct', 100)],
    [row('direct', 100)],
  ]
  const ratio = share(medianRows(rounds), rounds)!
  assert.deepEqual(ratio.rounds, [0.8, 0.9])
  assert.equal(ratio.value, 0.8)
  assert.equal(ratio.round, 1)
})

test('a ratio that cannot be computed is null; a cell that measured nothing is a ratio of 0', () => {
  assert.equal(share([row('burrow', 10)], []), null)
  assert.equal(share([row('burrow', 10), row('direct', 0)], []), null)
  assert.equal(roundsNote(null), '')
  assert.equal(valueRatio(row('burrow', 0), row('direct', 10)), 0)
})

test('an infinite ratio (a baseline of nothing) is kept, and written as ∞', () => {
  const rounds = [[row('a', 1)], [row('a', 2)], [row('a', 3)]]
  const ratio = roundRatio([], rounds, (byId) => (byId('a')!.value === 2 ? 1 : Infinity))!
  assert.equal(ratio.value, Infinity)
  assert.equal(roundsNote(ratio, 1), '; rounds ∞ · 1.0 · ∞')
  assert.equal(formatRatio(0.5), '0.50')
})
