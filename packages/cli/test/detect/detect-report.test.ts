// The list `burrow detect` prints, grouped by client.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { DetectedServer } from '../../src/detect/detected-server.js'
import { formatDetectReport } from '../../src/detect/detect-report.js'

function entry(i: number, client: DetectedServer['client']): DetectedServer {
  return {
    name: `s${i}`,
    sanitizedName: `s${i}`,
    client,
    clients: [client],
    source: '/work/.mcp.json',
    sources: ['/work/.mcp.json'],
    transport: { type: 'stdio', command: `run${i}`, args: [], env: {} },
    notes: [],
  }
}

describe('formatDetectReport', () => {
  it('groups servers by the client that declares them, in the order found', () => {
    const text = formatDetectReport(
      [entry(1, 'cursor'), entry(2, 'claude-code'), entry(3, 'cursor')],
      false,
    )
    assert.match(text, /^Found 3 MCP servers/)
    assert.match(text, /Cursor\n {2}s1\n {4}stdio: run1\n.*\n {2}s3\n/)
    assert.ok(text.indexOf('Cursor') < text.indexOf('Claude Code'))
  })
  it('lists 200,000 servers of one client without copying the group for each', () => {
    // A repository's .mcp.json of 4 MiB holds that many; each entry copied its client's group.
    const entries = Array.from({ length: 200_000 }, (_, i) => entry(i, 'claude-code'))
    const text = formatDetectReport(entries, false)
    assert.match(text, /^Found 200000 MCP servers/)
    assert.match(text, / {2}s199999\n/)
  })
})
