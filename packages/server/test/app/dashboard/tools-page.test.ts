import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { MAX_ESCAPES_PER_PAGE } from '../../../src/app/dashboard/shown-name.js'
import { toolsPage } from '../../../src/app/dashboard/tools-page.js'
import type { ToolView } from '../../../src/governance/tools-view.js'

const gone: ToolView = {
  name: 'server_time',
  status: 'removed',
  approvedHash: '7311ef93f54f00',
  approvedBodyHash: null,
  approvedDefinition: null,
  currentHash: null,
  currentBodyHash: null,
  currentDefinition: null,
  renamedFrom: null,
  changedAt: '2026-11-30T17:41:00.000Z',
  approvedAt: '2026-11-30T17:06:00.000Z',
  approvedBy: 'baseline',
  approvedForm: 2,
  currentForm: 2,
  rejected: [],
  diff: null,
  looksLike: null,
}

function render(tools: readonly ToolView[]): string {
  return toolsPage({
    viewer: { email: 'a@example.com', slug: 'a', csrfToken: 'csrf' },
    tunnel: {
      id: 'tun_1',
      name: 'files',
      subdomain: 'files',
      publicUrl: 'http://files--a.localhost:7100',
      online: true,
      serving: true,
      pinned: false,
      createdAt: new Date('2026-11-30T17:00:00Z'),
      lastSeenAt: null,
    },
    view: { baselined: true, listChangedAt: null, tools, decisions: [] },
    mode: 'alert',
    zeroKnowledge: false,
  }).toString()
}

describe('toolsPage', () => {
  it('a tool gone from the list: the text names the button it shows ("Acknowledge")', () => {
    const page = render([gone])
    assert.match(page, /data-approve="server_time">Acknowledge</)
    // It said "Approving forgets it" beside a button that says "Acknowledge".
    assert.doesNotMatch(page, /Approving forgets/)
    assert.match(page, /Acknowledging forgets it; if it comes back it is new\./)
  })

  it('hostile: many gone tools with markup in their names are escaped, one card each', () => {
    const many = Array.from({ length: 300 }, (_, i) => ({ ...gone, name: `<b>t${i}</b>` }))
    const page = render(many)
    assert.equal(page.match(/Acknowledging forgets it/g)?.length, 300)
    assert.doesNotMatch(page, /<b>t\d+<\/b>/)
  })
})

describe('toolsPage: a page of hidden characters', () => {
  it("hostile: escapes at most a page's budget of them, however many texts hold them", () => {
    // 19 changed tools of 200 fields, each value ("DEL" ×16 + "a") ×63: 3.6 M escapes, 204 MB.
    const value = `${'\x7f'.repeat(16)}a`.repeat(63)
    const changed: ToolView = {
      ...gone,
      status: 'changed',
      currentHash: 'c0ffee',
      diff: Array.from({ length: 200 }, (_, i) => ({
        path: `inputSchema.properties.p${i}.description`,
        before: 'x',
        after: value,
      })),
    }
    const tools = Array.from({ length: 19 }, (_, i) => ({ ...changed, name: `t${i}` }))
    const page = render(tools)
    const marks = page.match(/<mark class="np"/g)?.length ?? 0
    assert.ok(marks <= MAX_ESCAPES_PER_PAGE + 200 * 19 * 2, `${marks} marks`)
    assert.ok(page.length < 10_000_000, `${page.length} characters`)
    assert.match(page, /of the page are not shown/)
    // Every card is still there, each field too: only the escapes past the budget are left out.
    assert.equal(page.match(/class="card tool-change"/g)?.length, 19)
  })
})

describe('toolsPage: the mode line', () => {
  it('names rug-pull protection and its mode in words, and where to change it', () => {
    // It said "Mode alert: agents still see …" and "Change it in the Policy".
    const page = render([])
    assert.match(
      page,
      /Rug-pull protection is in alert mode: agents still see and call changed tools/,
    )
    assert.match(page, /Change it on the <a href="[^"]+\/policy">Policy<\/a> tab/)
    assert.doesNotMatch(page, /Mode alert/)
  })

  it('a change the kept definitions do not show is not called "no field differs"', () => {
    // Definitions are kept cut at 256 KiB and masked: a change past the cut, or behind a mask,
    // left equal texts, and the card said "No field differs." beside a changed hash.
    const kept = JSON.stringify({ description: 'x'.repeat(100), name: 'read_file' })
    const page = render([
      {
        ...gone,
        name: 'read_file',
        status: 'changed',
        approvedDefinition: kept,
        currentHash: '99aa00',
        currentDefinition: kept,
        diff: [],
      },
    ])
    assert.doesNotMatch(page, /No field differs/)
    assert.match(page, /hashes differ/)
  })
})
