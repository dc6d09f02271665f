// Which call a stdio server's question is for (CallTable.askCause): the latest call in flight
// when all are one session's, or all sessionless seats'; unplaceable across two sessions, or
// while another session's call was just cancelled.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { CallTable, type ChildCall } from '../../src/front/call-table.js'
import type { SessionRouter } from '../../src/front/routed-session.js'
import { RecentCancels } from '../../src/front/recent-cancels.js'
import { StdioSession } from '../../src/front/stdio-session.js'

const router = {} as SessionRouter<StdioSession>
const session = (id: string, askGroup?: string): StdioSession =>
  new StdioSession(
    id,
    { deliver: () => {}, end: () => {}, ...(askGroup === undefined ? {} : { askGroup }) },
    router,
  )

let order = 0
function call(table: CallTable, owner: StdioSession, method = 'tools/call'): ChildCall {
  const made: ChildCall = {
    session: owner,
    agentId: ++order,
    childId: table.nextChildId(),
    method,
    order,
    agentToken: undefined,
    detach: () => {},
  }
  table.add(made)
  return made
}

describe('CallTable.askCause', () => {
  it("is the latest call when every call in flight is one session's", () => {
    const table = new CallTable()
    const a = session('a')
    assert.equal(table.askCause(), undefined)
    call(table, session('b'), 'initialize')
    call(table, a)
    const latest = call(table, a)
    assert.equal(table.askCause(), latest, 'initialize aside')
  })

  it('is unplaced when calls of two sessions are in flight', () => {
    const table = new CallTable()
    call(table, session('a'))
    const b = call(table, session('b'))
    assert.equal(table.askCause(), 'unplaced')
    table.settle(b)
    assert.notEqual(table.askCause(), 'unplaced')
  })

  it("takes one agent's sessionless seats as one group, placed by recency", () => {
    const table = new CallTable()
    call(table, session('seat-1', 'agent A'))
    const latest = call(table, session('seat-2', 'agent A'))
    assert.equal(table.askCause(), latest)
    const other = call(table, session('seat-3', 'agent B'))
    assert.equal(table.askCause(), 'unplaced', "another agent's seat")
    table.settle(other)
    call(table, session('agent'))
    assert.equal(table.askCause(), 'unplaced', 'a 2025 session beside the seats')
  })

  it("is unplaced while another session's call was just cancelled", () => {
    let now = 0
    const table = new CallTable(new RecentCancels(2_000, () => now))
    const a = session('a')
    const gone = call(table, a)
    const b = call(table, session('b'))
    assert.equal(table.cancel(gone), true)
    assert.equal(table.askCause(), 'unplaced')
    now = 2_000
    assert.equal(table.askCause(), b)
    const again = call(table, b.session)
    table.cancel(again)
    assert.equal(table.askCause(), b, "the same session's own cancellation does not count")
  })
})
