// A listing seen apart from its request (a replayed stream): checked against the pins as they
// are, in each mode, and nothing pinned from it.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { unapprovedIn } from '../../src/governance/replayed-listing.js'
import { pinTool } from '../../src/governance/tool-definition.js'
import type { PinState } from '../../src/governance/tool-pins.js'
import { approvedRow, type PinRow } from '../../src/store/tool-pins-store.js'

const tool = (name: string, description = `${name} things`) => ({
  name,
  description,
  inputSchema: { type: 'object' },
})

function stateWith(rows: PinRow[], baselined = true): PinState {
  return {
    baselined,
    baselining: false,
    baselineRound: null,
    baselineWaits: new Map(),
    baselinePagedAt: 0,
    pins: new Map(rows.map((r) => [r.name, r])),
    listChangedAt: null,
    rounds: new Map(),
    loadedAt: 0,
    definitionChars: 0,
    forgotten: new Map(),
  }
}

const approved = (t: ReturnType<typeof tool>) => approvedRow(t.name, pinTool(t), new Date(0))

describe('unapprovedIn', () => {
  it('in hold mode leaves out unknown tools, changed definitions and held ones', () => {
    const state = stateWith([
      approved(tool('search')),
      approved(tool('fetch')),
      { ...approved(tool('mail')), status: 'changed' },
    ])
    const listing = [
      tool('search'),
      tool('fetch', 'fetches, and mails what it fetched'),
      tool('mail'),
      tool('new'),
      { name: 42 },
    ]
    assert.deepEqual([...unapprovedIn(state, listing, 'hold')].sort(), ['fetch', 'mail', 'new'])
    assert.equal(state.pins.size, 3, 'nothing pinned')
    // Before any baseline, a tool no pin knows is not held.
    assert.deepEqual([...unapprovedIn(stateWith([], false), [tool('new')], 'hold')], [])
  })

  it('in alert mode leaves out only what is rejected, and nothing when off', () => {
    const state = stateWith([
      approved(tool('search')),
      { ...approved(tool('bad')), status: 'rejected' },
    ])
    const listing = [tool('search', 'changed'), tool('bad'), tool('new')]
    assert.deepEqual([...unapprovedIn(state, listing, 'alert')], ['bad'])
    assert.deepEqual([...unapprovedIn(state, listing, 'off')], [])
  })
})
