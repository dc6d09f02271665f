// The once-per-tunnel log of agents whose MCP-Protocol-Version header names a 2025 revision while
// their body speaks 2026-07-28.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createLogger, isBodyProblem, readJsonRpcBody, type JsonRpcBody } from '@burrow/protocol'
import { VersionMismatches } from '../../src/edge/version-mismatches.js'

function read(value: unknown): JsonRpcBody {
  const r = readJsonRpcBody(Buffer.from(JSON.stringify(value)))
  if (isBodyProblem(r)) throw new Error(r.reason)
  return r
}

const modern = read({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: {} })
const older = read({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} })

function logged(): { lines: string[]; notes: VersionMismatches } {
  const lines: string[] = []
  return {
    lines,
    notes: new VersionMismatches(
      createLogger('info', (l) => lines.push(l)),
      3,
    ),
  }
}

describe('VersionMismatches', () => {
  it('logs a 2025 header on a 2026-07-28 body once per tunnel', () => {
    const { lines, notes } = logged()
    notes.note('tun_a', modern, '2025-06-18')
    notes.note('tun_a', modern, '2025-06-18')
    notes.note('tun_a', modern, '2025-03-26')
    assert.equal(lines.length, 1)
    assert.match(lines[0]!, /tunnel tun_a: an agent sent MCP-Protocol-Version 2025-06-18/)
    notes.note('tun_b', modern, '2025-06-18')
    assert.equal(lines.length, 2)
  })

  it('says nothing when header and body agree, or there is no header', () => {
    const { lines, notes } = logged()
    notes.note('tun_a', modern, undefined)
    notes.note('tun_a', modern, '2026-07-28')
    notes.note('tun_a', older, '2025-06-18')
    assert.deepEqual(lines, [])
  })

  it('cuts a hostile header in the log, and forgets past its bound', () => {
    const { lines, notes } = logged()
    notes.note('tun_a', modern, `2025-${'x'.repeat(10_000)}`)
    assert.ok(lines[0]!.length < 300, 'the header is cut')
    for (const t of ['tun_b', 'tun_c', 'tun_d']) notes.note(t, modern, '2025-06-18')
    // Three tunnels remembered at most: the memory started over, so tun_a is logged again.
    notes.note('tun_a', modern, '2025-06-18')
    assert.equal(lines.length, 5)
  })
})
