// Paginated lists followed for rug-pull protection: a page finds its list by the cursor it was
// asked with, however long the server made it, while the map holds only the cursor's hash (a
// hostile review: 32 cursors of 8 MiB held 320 MB for as long as the tunnel's pins were cached);
// a list whose names pass their bound is not followed further; lists that reach the same cursor
// are each followed, the baseline's first.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { noteName, roundOf, staleRounds, type Round } from '../../src/governance/list-rounds.js'

describe('roundOf', () => {
  it('follows a list by its cursors, keeping a short key for a cursor of megabytes', () => {
    const rounds = new Map<string, Round[]>()
    const long = `c1:${'x'.repeat(8 << 20)}`
    const first = roundOf(rounds, { cursor: null, nextCursor: long })
    assert.ok(first)
    noteName(first, 'read_file')
    assert.ok([...rounds.keys()].every((key) => key.length <= 64))
    const second = roundOf(rounds, { cursor: long, nextCursor: null })
    assert.equal(second, first)
    assert.ok(second.names.has('read_file'))
    assert.equal(rounds.size, 0)
    assert.equal(roundOf(rounds, { cursor: long, nextCursor: null }), null, 'followed once')
  })

  it('stops following a list whose names pass their bound in characters', () => {
    const rounds = new Map<string, Round[]>()
    const round = roundOf(rounds, { cursor: null, nextCursor: 'p2' })!
    for (let i = 0; i < 300; i++) noteName(round, `${i}:${'n'.repeat(1000)}`)
    noteName(round, `0:${'n'.repeat(1000)}`) // seen already: not counted twice
    assert.equal(round.names.size, 300)
    assert.equal(round.chars, [...round.names].join('').length)
    assert.equal(roundOf(rounds, { cursor: 'p2', nextCursor: 'p3' }), null)
    assert.equal(rounds.size, 0)
  })

  it('past the bound forgets the oldest list, never the one it is told to keep', () => {
    const rounds = new Map<string, Round[]>()
    const baseline = roundOf(rounds, { cursor: null, nextCursor: 'b2' })
    for (let i = 0; i < 100; i++) roundOf(rounds, { cursor: null, nextCursor: `q${i}` }, baseline)
    assert.equal(rounds.size, 32)
    assert.equal(roundOf(rounds, { cursor: 'b2', nextCursor: null }), baseline)
    assert.equal(roundOf(rounds, { cursor: 'q0', nextCursor: null }), null, 'the oldest other went')
  })

  it('follows each list a server gave the same cursor, the kept one first', () => {
    const rounds = new Map<string, Round[]>()
    const baseline = roundOf(rounds, { cursor: null, nextCursor: 'offset:2' })!
    noteName(baseline, 'a')
    // Another agent's list, from a server whose cursors are offsets (or reusing the baseline's).
    const other = roundOf(rounds, { cursor: null, nextCursor: 'offset:2' }, baseline)!
    noteName(other, 'a2')
    // Whichever agent asks first, the baseline's next page is the baseline's.
    assert.equal(roundOf(rounds, { cursor: 'offset:2', nextCursor: null }, baseline), baseline)
    assert.equal(roundOf(rounds, { cursor: 'offset:2', nextCursor: null }, baseline), other)
    assert.equal(rounds.size, 0)
    // Lists that are no baseline: the one that reached the cursor first.
    const first = roundOf(rounds, { cursor: null, nextCursor: 'n' })
    const second = roundOf(rounds, { cursor: null, nextCursor: 'n' })
    assert.equal(roundOf(rounds, { cursor: 'n', nextCursor: 'n3' }), first)
    assert.equal(roundOf(rounds, { cursor: 'n', nextCursor: null }), second)
    assert.equal(roundOf(rounds, { cursor: 'n3', nextCursor: null }), first)
    assert.equal(roundOf(rounds, { cursor: 'n', nextCursor: null }), null, 'each followed once')
  })

  it('past the bound forgets the oldest list at a shared cursor, never the kept one', () => {
    const rounds = new Map<string, Round[]>()
    const baseline = roundOf(rounds, { cursor: null, nextCursor: 'p2' })
    const others = Array.from({ length: 40 }, () =>
      roundOf(rounds, { cursor: null, nextCursor: 'p2' }, baseline),
    )
    assert.equal(rounds.get([...rounds.keys()][0]!)?.length, 32)
    assert.equal(roundOf(rounds, { cursor: 'p2', nextCursor: null }, baseline), baseline)
    assert.equal(
      roundOf(rounds, { cursor: 'p2', nextCursor: null }),
      others[9],
      'the 9 oldest went',
    )
  })

  it('gives up lists no page continues: too long, past the bound, or not paged for a while', () => {
    const rounds = new Map<string, Round[]>()
    const dropped: Round[] = []
    const drop = (r: Round) => dropped.push(r)
    const long = roundOf(rounds, { cursor: null, nextCursor: 'l2' }, null, 0, drop)!
    for (let i = 0; i < 300; i++) noteName(long, `${i}:${'n'.repeat(1000)}`)
    assert.equal(roundOf(rounds, { cursor: 'l2', nextCursor: 'l3' }, null, 1, drop), null)
    assert.deepEqual(dropped, [long])
    const kept = roundOf(rounds, { cursor: null, nextCursor: 'k2' }, null, 10, drop)!
    const lists = Array.from({ length: 32 }, (_, i) =>
      roundOf(rounds, { cursor: null, nextCursor: `q${i}` }, kept, 20 + i, drop),
    )
    assert.deepEqual(dropped, [long, lists[0]], 'the oldest but the kept one')
    // Not paged since 40: the kept one stays, the others paged by then go.
    const stale = staleRounds(rounds, 40, kept)
    assert.deepEqual(stale, lists.slice(1, 21))
    assert.equal(roundOf(rounds, { cursor: 'q1', nextCursor: null }), null)
    assert.equal(roundOf(rounds, { cursor: 'q21', nextCursor: null }), lists[21])
    assert.equal(roundOf(rounds, { cursor: 'k2', nextCursor: null }, kept), kept)
  })
})
