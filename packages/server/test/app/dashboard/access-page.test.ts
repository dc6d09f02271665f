import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { accessPage } from '../../../src/app/dashboard/access-page.js'

const tunnel = {
  id: 'tun_1',
  name: 'files',
  subdomain: 'files',
  publicUrl: 'https://files--acme.example.com',
  online: true,
  serving: true,
  pinned: false,
  createdAt: new Date('2026-01-01T00:00:00Z'),
  lastSeenAt: null,
}

/** The first cell of the connected agent's row, for a client of that name. */
function clientCell(clientName: string): string {
  const shown = String(
    accessPage({
      viewer: { email: 'owner@example.com', slug: 'acme', csrfToken: 'csrf' },
      tunnel,
      access: { mode: 'oauth', allowIps: [] },
      tokens: [],
      agents: [
        {
          id: 'grant_1',
          clientId: 'mcp_client_1',
          clientName,
          approvedBy: 'owner@example.com',
          createdAt: new Date('2026-01-02T00:00:00Z'),
          lastUsedAt: null,
        },
      ],
    }),
  )
  const match = /<tr data-agent="grant_1"><td>([\s\S]*?)<br \/>/.exec(shown)
  assert.ok(match, 'the connected agent is listed')
  return match[1]!
}

describe('accessPage', () => {
  it('shows a connected client by its name, hidden characters marked and scripts flagged', () => {
    assert.equal(clientCell('Claude'), '<code class="name">Claude</code>')
    assert.match(clientCell('\u200b\u200b'), /<mark class="np"/)
    assert.match(clientCell('\u0421laude'), /data-mixed-scripts=/)
    assert.doesNotMatch(clientCell('<b>x</b>'), /<b>/)
  })
})
