import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { RequestStateOwners } from '../../src/relay/request-state-owners.js'

describe('RequestStateOwners', () => {
  it('lets only the agents a state was given to present it', () => {
    const owners = new RequestStateOwners()
    owners.given('state-1', 'grant:a')
    assert.equal(owners.allows('state-1', 'grant:a'), true)
    assert.equal(
      owners.allows('state-1', 'grant:a'),
      true,
      'the server decides whether it is spent',
    )
    assert.equal(owners.allows('state-1', 'grant:b'), false)
    assert.equal(owners.allows('state-2', 'grant:a'), false, 'nor a state it never saw')
  })

  it('lets every agent a server gave one value to present it', () => {
    const owners = new RequestStateOwners()
    owners.given('same', 'grant:a')
    owners.given('same', 'grant:b')
    assert.equal(owners.allows('same', 'grant:a'), true)
    assert.equal(owners.allows('same', 'grant:b'), true)
    assert.equal(owners.allows('same', 'grant:c'), false)
  })

  it('tells apart agents whose names run into the state', () => {
    const owners = new RequestStateOwners()
    owners.given('b', 'a')
    assert.equal(owners.allows('', 'ab'), false)
    assert.equal(owners.allows('b', 'a\u0000'), false)
  })

  it("forgets an agent's least recently used state beyond its bound", () => {
    const owners = new RequestStateOwners(2)
    owners.given('s1', 'a')
    owners.given('s2', 'a')
    assert.equal(owners.allows('s1', 'a'), true, 's1 is now the most recently used')
    owners.given('t1', 'b')
    assert.equal(owners.size, 2)
    assert.equal(owners.allows('s2', 'a'), false, 's2 went first')
    assert.equal(owners.allows('s1', 'a'), true)
    assert.equal(owners.allows('t1', 'b'), true)
  })

  it("lets one agent's states push out only its own", () => {
    const owners = new RequestStateOwners(100, 2)
    owners.given('theirs', 'b')
    owners.given('s1', 'a')
    owners.given('s2', 'a')
    owners.given('s3', 'a')
    assert.equal(owners.allows('s1', 'a'), false, "a's oldest went")
    assert.equal(owners.allows('s2', 'a'), true)
    assert.equal(owners.allows('s3', 'a'), true)
    assert.equal(owners.allows('theirs', 'b'), true, "b's stays")
    assert.equal(owners.size, 3)
  })

  it('keeps a long state as a hash', () => {
    const owners = new RequestStateOwners()
    const long = 'x'.repeat(1_000_000)
    owners.given(long, 'a')
    assert.equal(owners.allows(long, 'a'), true)
    assert.equal(owners.allows(`${long}y`, 'a'), false)
  })
})

describe('RequestStateOwners under hostile use', () => {
  it('tells apart states that differ only in lone surrogates (found by a hostile review)', () => {
    // Hashed as UTF-8, every lone surrogate became U+FFFD: an agent given one such state could
    // present another agent's that differed from it only there.
    const owners = new RequestStateOwners()
    owners.given('state-\ud800', 'grant:b')
    assert.equal(owners.allows('state-\udbff', 'grant:b'), false)
    assert.equal(owners.allows('state-\ud800', 'grant:b'), true)
  })

  it('past the total, forgets the states of the agent holding the most (found by a hostile review)', () => {
    // Before, the least recently used state went, whoever held it: agents each at their share
    // pushed out every state of an agent holding few.
    const owners = new RequestStateOwners(4, 3)
    owners.given('b1', 'b')
    for (const s of ['a1', 'a2', 'a3']) owners.given(s, 'a')
    owners.given('c1', 'c')
    assert.equal(owners.size, 4)
    assert.equal(owners.allows('b1', 'b'), true, "b's one state stays")
    assert.equal(owners.allows('a1', 'a'), false, "a's oldest went")
    assert.equal(owners.allows('c1', 'c'), true)
  })
})
