import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { SessionOwners } from '../../src/relay/session-owners.js'

describe('SessionOwners', () => {
  it('lets only the agent a session was opened for use it', () => {
    const owners = new SessionOwners()
    owners.opened('s1', 'grant:a')
    assert.equal(owners.allows('s1', 'grant:a'), true)
    assert.equal(owners.allows('s1', 'grant:b'), false)
    assert.equal(owners.allows('s1', undefined), false, 'nor a caller naming no agent')
  })

  it('keeps the first owner when the id is given again', () => {
    const owners = new SessionOwners()
    owners.opened('s1', 'grant:a')
    owners.opened('s1', 'grant:b')
    assert.equal(owners.allows('s1', 'grant:a'), true)
    assert.equal(owners.allows('s1', 'grant:b'), false)
  })

  it('refuses agents a session it never saw, and lets public callers through', () => {
    const owners = new SessionOwners()
    assert.equal(owners.allows('unknown', 'grant:a'), false)
    assert.equal(owners.allows('unknown', undefined), true)
  })

  it('forgets ended sessions, and the least recently used beyond its bound', () => {
    const owners = new SessionOwners(2)
    owners.opened('s1', 'a')
    owners.opened('s2', 'a')
    assert.equal(owners.allows('s1', 'a'), true, 's1 is now the most recently used')
    owners.opened('s3', 'a')
    assert.equal(owners.size, 2)
    assert.equal(owners.allows('s2', 'a'), false, 's2 went first')
    assert.equal(owners.allows('s1', 'a'), true)
    owners.ended('s1')
    assert.equal(owners.allows('s1', 'a'), false)
  })

  it("lets one agent's sessions push out only its own", () => {
    const owners = new SessionOwners(100, 2)
    owners.opened('theirs', 'b')
    owners.opened('s1', 'a')
    owners.opened('s2', 'a')
    owners.opened('s3', 'a')
    assert.equal(owners.allows('s1', 'a'), false, "a's oldest went")
    assert.equal(owners.allows('s2', 'a'), true)
    assert.equal(owners.allows('s3', 'a'), true)
    assert.equal(owners.allows('theirs', 'b'), true, "b's stays")
    owners.ended('s2')
    owners.opened('s4', 'a')
    assert.equal(owners.allows('s3', 'a'), true, 'an ended session made room')
    assert.equal(owners.size, 3)
  })
})
