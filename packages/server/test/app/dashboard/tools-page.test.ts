import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
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
})
